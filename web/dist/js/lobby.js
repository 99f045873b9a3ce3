// The lobby: the games and their options, open and running matches, create, join,
// quick match through the matchmaker, spectate and replay.
import { h, s, toast } from "./dom.js";
import { GAME_NAMES, statusText, statusClass } from "./table.js";

// Used when ListGames does not (yet) describe the options itself.
const KNOWN_OPTIONS = {
  el_dorado: [
    { name: "course", allowedValues: ["first_game", "hills_of_gold", "home_stretch", "winding_paths", "serpentine", "swamplands", "witchs_cauldron"], default: "first_game", description: "which course to race on" },
    { name: "caves", allowedValues: ["false", "true"], default: "false", description: "the caves variant" },
    { name: "max_rounds", allowedValues: [], default: "200", description: "rounds before the match ends anyway" },
  ],
  la_isla: [{ name: "deck", allowedValues: ["beginner", "full"], default: "beginner", description: "which cards are in the deck" }],
  discover: [{ name: "scenario", allowedValues: ["island-1"], default: "island-1", description: "the scenario" }],
};
const BLURB = {
  el_dorado: "Build a deck of explorers and race through jungle, rivers and villages to the golden city.",
  la_isla: "Draft cards, place explorers on the island and help rare animals survive.",
  discover: "Survive together on an unknown island: explore, gather, craft and fight through day and night.",
};

function art(game) {
  const svg = s("svg", { viewBox: "0 0 300 110", preserveAspectRatio: "xMidYMid slice", width: "100%", height: "110" });
  if (game === "el_dorado") {
    svg.append(s("rect", { width: 300, height: 110, fill: "#1f4d5e" }));
    const cols = ["#4f9a45", "#3d8fd1", "#e8c547", "#4f9a45", "#8c7b6a", "#4f9a45", "#f5c542"];
    for (let i = 0; i < 14; i++) {
      const x = 20 + i * 21, y = 55 + (i % 2 ? 18 : -18);
      const pts = [...Array(6)].map((_, k) => { const a = Math.PI / 180 * (60 * k - 30); return `${x + 13 * Math.cos(a)},${y + 13 * Math.sin(a)}`; }).join(" ");
      svg.append(s("polygon", { points: pts, fill: cols[i % cols.length], stroke: "#222" }));
    }
  } else if (game === "la_isla") {
    svg.append(s("rect", { width: 300, height: 110, fill: "#2c8fb0" }), s("ellipse", { cx: 150, cy: 60, rx: 120, ry: 42, fill: "#e6d39a" }), s("ellipse", { cx: 150, cy: 60, rx: 108, ry: 34, fill: "#5d9a45" }));
    ["#f4f1ea", "#f2cb3a", "#5fae4f", "#9b6a3f", "#9a9a9a"].forEach((c, i) => svg.append(s("circle", { cx: 80 + i * 35, cy: 60, r: 11, fill: c, stroke: "#3b2a14", "stroke-width": 2 })));
  } else {
    svg.append(s("rect", { width: 300, height: 110, fill: "#0b1224" }), s("circle", { cx: 250, cy: 30, r: 14, fill: "#f3efd2" }), s("circle", { cx: 257, cy: 26, r: 12, fill: "#0b1224" }));
    svg.append(s("path", { d: "M0,110 L40,70 L80,90 L130,50 L180,85 L230,65 L300,100 L300,110 Z", fill: "#2f5a2a" }));
    svg.append(s("path", { d: "M150,92 q-9,-8 0,-20 q3,8 7,9 q4,6 -7,11z", fill: "#ff8c1a" }));
  }
  return svg;
}

export async function renderLobby(root, { api, signIn, store, open, errorText }) {
  const games = (await api.listGames()).games || [];
  const gamesEl = h("div", { class: "lobby", id: "games" });
  for (const g of games) {
    const options = (g.options && g.options.length ? g.options : KNOWN_OPTIONS[g.game] || []);
    const inputs = {};
    const opts = h("div", { class: "opts" });
    for (const o of options) {
      const values = o.allowedValues || o.allowed || [];
      const input = values.length
        ? h("select", { name: o.name, title: o.description || "" }, values.map((v) => h("option", { value: v, selected: v === (o.default || o.defaultValue) }, v.replace(/_/g, " "))))
        : h("input", { name: o.name, placeholder: o.default || o.defaultValue || "", title: o.description || "" });
      inputs[o.name] = input;
      opts.append(h("label", {}, o.name.replace(/_/g, " ")), input);
    }
    const seats = h("select", { name: "seats" });
    for (let n = Number(g.minSeats || 1); n <= Number(g.maxSeats || 1); n++) seats.append(h("option", { value: n }, n === 1 ? "solo" : `${n} players`));
    opts.append(h("label", {}, "players"), seats);
    const config = () => Object.fromEntries(Object.entries(inputs).filter(([, el]) => el.value !== "").map(([k, el]) => [k, el.value]));
    const note = h("div", { class: "secret-note" });
    const create = async () => {
      try {
        await signIn();
        const m = (await api.createMatch(g.game, Number(seats.value), config())).match;
        const j = await api.joinMatch(m.matchId, 0);
        store.saveSeat(m.matchId, j.seat || 0, j.token);
        open(m.matchId);
      } catch (e) { toast(errorText(e)); }
    };
    const quick = async (btn) => {
      try {
        await signIn();
        const n = Number(seats.value);
        note.textContent = "Looking for players…";
        btn.disabled = true;
        await api.queue(g.game, n, n, config(), (t) => {
          if (t.status === "TICKET_STATUS_ASSIGNED" && t.assignment) {
            store.saveSeat(t.assignment.matchId, t.assignment.seat || 0, t.assignment.token);
            open(t.assignment.matchId);
          } else if (t.status === "TICKET_STATUS_EXPIRED") note.textContent = "No match found in time.";
        });
      } catch (e) { toast(errorText(e)); note.textContent = ""; } finally { btn.disabled = false; }
    };
    const quickBtn = h("button", { class: "secondary", onclick: (e) => quick(e.target) }, "Quick match");
    gamesEl.append(h("div", { class: "panel game-card", "data-game": g.game },
      h("div", { class: "art" }, art(g.game)),
      h("h3", {}, GAME_NAMES[g.game] || g.game),
      h("div", { class: "secret-note" }, BLURB[g.game] || ""),
      opts,
      h("div", { class: "row" }, h("button", { onclick: create, "data-action": "create" }, "Create match"), quickBtn),
      note));
  }

  const matchesEl = h("div", { class: "panel", id: "matches" }, h("h2", {}, "Matches"), h("p", { class: "loading" }, "Loading…"));
  const joinBy = h("input", { placeholder: "match id", size: 28 });
  root.replaceChildren(
    h("div", { class: "row", style: { justifyContent: "space-between", marginBottom: ".8rem" } },
      h("h1", { style: { margin: 0, color: "var(--gold)" } }, "Pick a game"),
      h("div", { class: "row" }, joinBy, h("button", { class: "secondary", onclick: () => joinBy.value && open(joinBy.value.trim()) }, "Open"))),
    gamesEl, h("div", { style: { height: "1rem" } }), matchesEl);

  const rows = [];
  for (const status of ["MATCH_STATUS_LOBBY", "MATCH_STATUS_ACTIVE", "MATCH_STATUS_FINISHED"]) {
    try { rows.push(...((await api.listMatches("", status, 25)).matches || [])); } catch (e) { toast(errorText(e)); }
  }
  const table = h("table", { class: "matches" }, h("tr", {}, ["Game", "Match", "Seats", "Status", "Version", ""].map((t) => h("th", {}, t))));
  for (const m of rows) {
    const taken = (m.seats || []).filter((x) => x.playerId).length;
    const mine = store.seat(m.matchId);
    const st = statusText(m.status);
    let action;
    const go = () => open(m.matchId);
    if (mine) action = h("button", { onclick: go }, "Back to my seat");
    else if (st === "lobby" && taken < Number(m.seatCount)) action = h("button", { onclick: async () => {
      try { await signIn(); const j = await api.joinMatch(m.matchId); store.saveSeat(m.matchId, j.seat || 0, j.token); go(); } catch (e) { toast(errorText(e)); }
    } }, "Join");
    else if (st === "finished") action = h("button", { class: "secondary", onclick: go }, "Replay");
    else action = h("button", { class: "secondary", onclick: go }, "Watch");
    table.append(h("tr", { "data-match": m.matchId },
      h("td", {}, GAME_NAMES[m.game] || m.game), h("td", {}, h("code", {}, m.matchId.slice(0, 12))),
      h("td", {}, `${taken}/${m.seatCount}`), h("td", {}, h("span", { class: "badge " + statusClass(m.status) }, st)),
      h("td", {}, String(m.version || 0)), h("td", {}, action)));
  }
  matchesEl.replaceChildren(h("h2", {}, "Matches"), rows.length ? table : h("p", {}, "No matches yet: create one above."),
    h("button", { class: "secondary", onclick: () => renderLobby(root, { api, signIn, store, open, errorText }) }, "Refresh"));
}
