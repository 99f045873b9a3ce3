// The web table for a new player, desktop and phone, in headless Chromium against a
// stand-in gateway (every method answered from web/fixtures, every request recorded):
//
//   clicks    one click on each kind of board choice (and a list button, and Enter on a
//             focused choice) sends exactly one SubmitAction, in every game; a retry
//             after a lost answer reuses the command id; a click while one is on its
//             way sends nothing
//   layout    at 390x844 and 1400x1000 the lobby and every table fit the width
//             (document scrollWidth <= innerWidth); on the phone the choices are on
//             screen without scrolling; screenshots into $SHOTS (default web/artifacts/ux)
//   lobby     options drawn by type and checked before sending, the display name kept
//             and used to sign in, names on the leaderboard, the waiting room's words
//   quick     Cancel calls CancelTicket; leaving the page withdraws the ticket
//   errors    gateway down (the edge's unavailable, an unreachable origin) and refused
//             moves read as sentences with no address or library text
//
//   node web/tests/ux.mjs [part ...]        TABLETOP_DOWN_URL=<an edge whose gateway is down>
import { createServer } from "node:http";
import { readFile, mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { extname, join, normalize, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const WEB = join(dirname(fileURLToPath(import.meta.url)), "..");
const SHOTS = process.env.SHOTS || join(WEB, "artifacts", "ux");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json" };
const PHONE = { width: 390, height: 844 }, DESKTOP = { width: 1400, height: 1000 };
// What a player must never read: addresses, transport and library words.
const RAW = [/127\.0\.0\.1/, /ipv4/i, /failed to connect/i, /Failed to fetch/, /unavailable:/i, /NetworkError/, /UNKNOWN:/, /all addresses/i, /retry shortly/i, /grpc/i];
// Each game's kinds of board choice (the prefix of data-target) the click test must meet.
const KINDS = {
  el_dorado: ["hex", "hand", "market", "seam"],
  la_isla: ["hand", "space", "res", "marker"],
  discover: ["hex", "seat", "combat", "slot", "enemy", "project", "character"],
};

const fixtures = {};
async function loadFixtures() {
  for (const name of JSON.parse(await readFile(join(WEB, "fixtures", "index.json"), "utf8"))) {
    fixtures[name] = JSON.parse(await readFile(join(WEB, "fixtures", `${name}.json`), "utf8"));
  }
  // Real positions lack a few kinds of choice (a blockade to break, a marker to advance,
  // a slot to explore, an enemy to fight, a project to craft, a character to pick): the
  // same views with legal actions of those kinds added, shaped as the engines write them.
  const derive = (base, name, more, change = (v) => v) => {
    const fx = structuredClone(fixtures[base]);
    const type = (fx.legalActions[0] || {})["@type"] || `type.googleapis.com/tabletop.games.${fx.game}.v1.Action`;
    fx.name = name;
    fx.match.matchId = `fixture-${name}`;
    fx.view = change(fx.view);
    fx.legalActions = [...fx.legalActions, ...more(fx.view).map((a) => ({ "@type": type, ...a }))];
    fixtures[name] = fx;
  };
  derive("el_dorado-1", "el_dorado-seam", () => [{ breakBlockade: { seam: 1 } }]);
  derive("la_isla-2", "la_isla-marker", (v) => [{ chooseMarker: { animal: v.markers[0].animal } }]);
  derive("discover-2", "discover-more", (v) => {
    const explored = new Set((v.tiles || []).map((t) => Number(t.slot || 0)));
    const slot = [...Array(18).keys()].find((i) => !explored.has(i));
    return [{ explore: { slot } }, { chooseEnemy: { enemy: v.enemies[0].id } }, { craft: { project: v.hand[0] } },
      { chooseCharacter: { character: 2 } }, { trade: { partner: 0 } }];
  }, (v) => ({ ...v, offer: [2, 5] }));
  // a waiting room: one of two seats taken, by a player with a name
  const lobby = structuredClone(fixtures["la_isla-1"]);
  lobby.name = "la_isla-lobby";
  lobby.match = { matchId: "fixture-la_isla-lobby", game: "la_isla", seatCount: 2, status: "MATCH_STATUS_LOBBY", version: "1",
    seats: [{ seat: 0, playerId: "p-ada-0123456789", displayName: "Ada" }, { seat: 1 }] };
  lobby.view = { "@type": "type.googleapis.com/tabletop.games.la_isla.v1.View" };
  lobby.legalActions = [];
  lobby.entries = [];
  fixtures[lobby.name] = lobby;
}
const byMatch = (id) => Object.values(fixtures).find((f) => f.match.matchId === id);

const GAMES = {
  games: [
    { game: "el_dorado", minSeats: 2, maxSeats: 4, options: [
      { name: "course", type: "OPTION_TYPE_CHOICE", allowedValues: ["first_game", "hills_of_gold"], default: "first_game", description: "which course" },
      { name: "caves", type: "OPTION_TYPE_BOOL", default: "false", description: "the caves variant" },
      { name: "max_rounds", type: "OPTION_TYPE_INT", min: 1, max: 500, default: "200", description: "rounds before the end" },
      { name: "clock", type: "OPTION_TYPE_CHOICE", allowedValues: ["none", "move", "game"], default: "none", description: "turn clock" },
      { name: "clock_seconds", type: "OPTION_TYPE_INT", min: 5, max: 604800, default: "60", description: "seconds per decision" }] },
    { game: "la_isla", minSeats: 2, maxSeats: 4, options: [
      { name: "deck", type: "OPTION_TYPE_CHOICE", allowedValues: ["beginner", "full"], default: "beginner" }] },
    { game: "discover", minSeats: 1, maxSeats: 4, cooperative: true, options: [
      { name: "scenario", type: "OPTION_TYPE_CHOICE", allowedValues: ["island-1"], default: "island-1" },
      { name: "notes", type: "OPTION_TYPE_STRING", default: "", description: "free text" }] },
  ],
};
// Named as ListGames names them: the title and summary of each game's words.
const WORDS = JSON.parse(await readFile(join(WEB, "dist", "data", "words.json"), "utf8"));
for (const g of GAMES.games) Object.assign(g, { title: WORDS[g.game].title, summary: WORDS[g.game].summary });
const LEADERS = { entries: [
  { rank: 1, rating: { playerId: "p-ada-0123456789", displayName: "Ada Lovelace", ordinal: 21.5, matches: 12 } },
  { rank: 2, rating: { playerId: "9f8e7d6c5b4a39281706", ordinal: 12.25, matches: 5 } },
] };

// ---- the stand-in gateway ----
const calls = [];
const mode = { down: false, submit: "ok", submitDelay: 0 };
const frame = (obj, flags = 0) => {
  const json = Buffer.from(JSON.stringify(obj));
  const head = Buffer.alloc(5);
  head[0] = flags; head.writeUInt32BE(json.length, 1);
  return Buffer.concat([head, json]);
};
const UNAVAILABLE = { code: "unavailable", message: "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:59999: Failed to connect to remote host: Connection refused" };

async function answer(method, body, res) {
  const json = (status, obj) => { res.writeHead(status, { "Content-Type": "application/json" }); res.end(JSON.stringify(obj)); };
  if (mode.down) return json(503, UNAVAILABLE);
  const fx = body.matchId ? byMatch(body.matchId) : null;
  switch (method) {
    case "Authenticate": return json(200, { sessionToken: `session-${calls.length}`, playerId: "p-me" });
    case "ListGames": return json(200, GAMES);
    case "ListMatches": return json(200, { matches: Object.values(fixtures).map((f) => f.match).filter((m) => m.status === body.status) });
    case "ListLeaderboard": return json(200, body.game === "el_dorado" ? LEADERS : { entries: [] });
    case "CreateMatch": return json(200, { match: { matchId: "fixture-la_isla-lobby" } });
    case "JoinMatch": return json(200, { seat: 0, token: "seat-token" });
    case "GetView": return fx ? json(200, { match: fx.match, view: fx.view, seat: fx.seat ?? undefined }) : json(404, { code: "not_found", message: "no such match m-1" });
    case "ListLegalActions": return json(200, { actions: fx ? fx.legalActions : [] });
    case "GetMatchLog": return json(200, { entries: body.afterVersion && body.afterVersion !== "0" ? [] : (fx ? fx.entries : []) });
    case "SubmitAction": {
      if (mode.submitDelay) await new Promise((r) => setTimeout(r, mode.submitDelay));
      if (mode.submit === "lost") { mode.submit = "ok"; return json(503, UNAVAILABLE); }
      if (mode.submit === "illegal") {
        mode.submit = "ok";
        return json(400, { code: "failed_precondition", message: "movement.not_adjacent: (3, 4) is not next to piece 0 at ipv4:10.0.0.7",
          details: [{ type: "google.rpc.ErrorInfo", value: Buffer.from([0x0a, 21, ...Buffer.from("movement.not_adjacent")]).toString("base64") }] });
      }
      return json(200, { version: fx ? fx.match.version : "1" });
    }
    case "CancelTicket": return json(200, {});
    case "WatchMatch": case "Queue": {
      res.writeHead(200, { "Content-Type": "application/connect+json" });
      if (method === "Queue") res.write(frame({ ticketId: `ticket-${calls.length}`, status: "TICKET_STATUS_WAITING" }));
      return; // held open: the page's own abort ends it
    }
    default: return json(501, { code: "unimplemented", message: `no ${method} here` });
  }
}

async function serve() {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    if (path.startsWith("/tabletop.")) {
      const method = path.split("/").pop();
      const chunks = [];
      for await (const c of req) chunks.push(c);
      let raw = Buffer.concat(chunks);
      if ((req.headers["content-type"] || "").includes("connect+json")) raw = raw.subarray(5);
      const body = raw.length ? JSON.parse(raw.toString()) : {};
      calls.push({ method, body, auth: req.headers.authorization || "" });
      return answer(method, body, res);
    }
    try {
      const data = await readFile(join(WEB, path.endsWith("/") ? path + "index.html" : path));
      res.writeHead(200, { "Content-Type": TYPES[extname(path)] || "application/octet-stream" });
      res.end(data);
    } catch { res.writeHead(404); res.end("not found"); }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const submits = () => calls.filter((c) => c.method === "SubmitAction");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the checks ----
let base = "";
let browser;
const results = [];
function check(name, ok, detail = "") {
  results.push(ok);
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? " " + detail : ""}`);
}

async function openTable(viewport, fx) {
  const ctx = await browser.newContext({ viewport });
  await ctx.addInitScript(([id, seat]) => {
    if (seat !== null) localStorage.setItem("tabletop.seats", JSON.stringify({ [id]: { seat, token: "seat-token" } }));
    localStorage.setItem("tabletop.name", "Tester");
  }, [fx.match.matchId, fx.seat ?? null]);
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${base}/dist/index.html#/match/${encodeURIComponent(fx.match.matchId)}`);
  await page.waitForSelector("body[data-ready='1']", { timeout: 10000 });
  return { ctx, page, errors };
}

// Waits until the page has sent what it will for one gesture (and redrawn after it).
async function settle(page, before) {
  for (let i = 0; i < 40 && submits().length === before; i++) await sleep(25);
  await sleep(250);
  await page.waitForSelector("body[data-ready='1']:not(.sending)");
}

async function clicks() {
  const seen = { el_dorado: new Set(), la_isla: new Set(), discover: new Set() };
  for (const fx of Object.values(fixtures)) {
    if (fx.seat == null || !fx.legalActions.length || fx.match.status !== "MATCH_STATUS_ACTIVE") continue;
    const { ctx, page, errors } = await openTable(DESKTOP, fx);
    const kinds = await page.evaluate(() => [...new Set([...document.querySelectorAll("[data-target]")].map((e) => e.dataset.target.split(":")[0]))]);
    for (const kind of kinds) {
      const before = submits().length;
      const el = page.locator(`[data-target^="${kind}:"]`).first();
      await el.click({ force: true });
      // several choices on one element: a menu of them, one of which is picked
      if (await page.locator(".choice-pop").count()) await page.locator(".choice-pop button").first().click();
      await settle(page, before);
      const sent = submits().length - before;
      if (sent === 1) seen[fx.game].add(kind);
      check(`click ${fx.name} ${kind}`, sent === 1, `sent ${sent}`);
    }
    let before = submits().length;
    await page.locator("#actions button").first().click();
    await settle(page, before);
    check(`click ${fx.name} list button`, submits().length - before === 1, `sent ${submits().length - before}`);
    // the keyboard: Enter on a focused board choice; Enter on a list button
    const focusable = page.locator("[data-target][tabindex='0']").first();
    if (await focusable.count()) {
      before = submits().length;
      await focusable.focus();
      await page.keyboard.press("Enter");
      if (await page.locator(".choice-pop").count()) await page.locator(".choice-pop button").first().click();
      await settle(page, before);
      check(`keyboard ${fx.name} Enter on a board choice`, submits().length - before === 1, `sent ${submits().length - before}`);
    }
    const button = page.locator("[data-target] >> visible=true").filter({ has: page.locator("xpath=self::button") });
    before = submits().length;
    await page.locator("#actions button").first().focus();
    await page.keyboard.press("Enter");
    await settle(page, before);
    check(`keyboard ${fx.name} Enter on a list button`, submits().length - before === 1, `sent ${submits().length - before}`);
    if (await button.count()) {
      before = submits().length;
      await button.first().focus();
      await page.keyboard.press("Enter");
      await settle(page, before);
      check(`keyboard ${fx.name} Enter on a board button`, submits().length - before === 1, `sent ${submits().length - before}`);
    }
    check(`no script errors ${fx.name}`, errors.length === 0, errors.join(" | "));
    await ctx.close();
  }
  for (const [game, kinds] of Object.entries(KINDS)) {
    const missing = kinds.filter((k) => !seen[game].has(k));
    check(`every kind of choice clicked in ${game}`, missing.length === 0, missing.length ? `missing ${missing}` : kinds.join(","));
  }

  // a retry after a lost answer carries the same command id; the next move a new one
  const fx = fixtures["el_dorado-1"];
  const { ctx, page } = await openTable(DESKTOP, fx);
  mode.submit = "lost";
  let before = submits().length;
  await page.locator("#actions button").first().click();
  await settle(page, before);
  const toast = await page.locator("#toast").innerText();
  before = submits().length;
  await page.locator("#actions button").first().click();
  await settle(page, before);
  before = submits().length;
  await page.locator("#actions button").first().click();
  await settle(page, before);
  const [lost, retried, next] = submits().slice(-3).map((c) => c.body.commandId);
  check("a retry reuses the command id", lost && lost === retried, `${lost} ${retried}`);
  check("an answered move frees its command id", next && next !== retried, `${next}`);
  check("a lost answer reads as words", /can't be reached/.test(toast) && !RAW.some((r) => r.test(toast)), JSON.stringify(toast));
  // a second click while the first is on its way sends nothing
  mode.submitDelay = 700;
  before = submits().length;
  await page.locator("#actions button").first().click();
  await page.locator("[data-target]").first().click({ force: true });
  await page.evaluate(() => document.querySelector("#actions button")?.click());
  await sleep(1200);
  await settle(page, before);
  mode.submitDelay = 0;
  check("clicks while a move is on its way send nothing more", submits().length - before === 1, `sent ${submits().length - before}`);
  // a refused move: the rule's words, not the server's message
  mode.submit = "illegal";
  before = submits().length;
  await page.locator("#actions button").first().click();
  await settle(page, before);
  const refused = await page.locator("#toast").innerText();
  check("a refused move reads as words", /isn't allowed/.test(refused) && !RAW.some((r) => r.test(refused)) && !/movement\./.test(refused), JSON.stringify(refused));
  await ctx.close();
}

async function fits(page) {
  return page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth, body: document.body.scrollWidth }));
}

async function layout() {
  await mkdir(SHOTS, { recursive: true });
  for (const [label, viewport] of [["phone", PHONE], ["desktop", DESKTOP]]) {
    const ctx = await browser.newContext({ viewport });
    const page = await ctx.newPage();
    await page.goto(`${base}/dist/index.html`);
    await page.waitForSelector("body[data-ready='1'] #matches table", { timeout: 10000 });
    await page.waitForSelector("#leaderboard table");
    const f = await fits(page);
    await page.screenshot({ path: join(SHOTS, `lobby-${label}.png`), fullPage: true });
    check(`lobby fits ${label}`, f.scroll <= f.inner, JSON.stringify(f));
    await ctx.close();
    for (const fx of Object.values(fixtures)) {
      const { ctx: c, page: p } = await openTable(viewport, fx);
      await p.waitForSelector("#board svg");
      const f2 = await fits(p);
      await p.screenshot({ path: join(SHOTS, `${fx.name}-${label}.png`), fullPage: label === "desktop" });
      let reach = "";
      if (label === "phone" && fx.seat != null && fx.legalActions.length && fx.match.status === "MATCH_STATUS_ACTIVE") {
        // the first choice is on screen and on top, with the page scrolled to the top
        const first = await p.evaluate(() => {
          const b = document.querySelector("#actions button, #assign-picker select");
          if (!b) return { found: false };
          const r = b.getBoundingClientRect();
          const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return { found: true, inView: r.top >= 0 && r.bottom <= innerHeight, onTop: b === top || b.contains(top), scrollY };
        });
        const svg = await p.evaluate(() => document.querySelector("#board svg").getBoundingClientRect().width <= innerWidth);
        reach = JSON.stringify(first);
        check(`choices in reach on the phone ${fx.name}`, first.found && first.inView && first.onTop && first.scrollY === 0 && svg, reach);
      }
      check(`table fits ${label} ${fx.name}`, f2.scroll <= f2.inner, JSON.stringify(f2));
      await c.close();
    }
  }
  console.log(`screenshots in ${SHOTS}`);
}

async function lobby() {
  const ctx = await browser.newContext({ viewport: PHONE });
  const page = await ctx.newPage();
  await page.goto(`${base}/dist/index.html`);
  await page.waitForSelector("body[data-ready='1'] #games [data-game]");
  const card = page.locator('#games [data-game="el_dorado"]');
  const kinds = await card.evaluate((el) => ({
    course: el.querySelector('[name="course"]')?.tagName,
    caves: el.querySelector('[name="caves"]')?.type,
    rounds: [el.querySelector('[name="max_rounds"]')?.type, el.querySelector('[name="max_rounds"]')?.min, el.querySelector('[name="max_rounds"]')?.max],
  }));
  check("options drawn by type", kinds.course === "SELECT" && kinds.caves === "checkbox" && kinds.rounds.join() === "number,1,500", JSON.stringify(kinds));
  const notes = await page.locator('#games [data-game="discover"] [name="notes"]').getAttribute("type");
  check("a text option is a text field", notes === "text", notes);
  // out of range: nothing is sent, the field says why
  await page.locator("#display-name").fill("Ada");
  await page.locator("#display-name").dispatchEvent("change");
  const stored = await page.evaluate(() => localStorage.getItem("tabletop.name"));
  check("the display name is kept in this browser", stored === "Ada", stored);
  await card.locator('[name="max_rounds"]').fill("0");
  let before = calls.length;
  await card.locator('[data-action="create"]').click();
  await sleep(300);
  const sent = calls.slice(before).filter((c) => c.method === "CreateMatch").length;
  const why = await card.locator(".field-error:not([hidden])").innerText().catch(() => "");
  check("an out-of-range option is refused before sending", sent === 0 && /whole number from 1 to 500/.test(why), JSON.stringify(why));
  await card.locator('[name="max_rounds"]').fill("4");
  await card.locator('[name="caves"]').check();
  before = calls.length;
  await card.locator('[data-action="create"]').click();
  await page.waitForURL(/#\/match\//);
  const create = calls.slice(before).find((c) => c.method === "CreateMatch");
  const auth = calls.slice(before).find((c) => c.method === "Authenticate");
  check("checked options are sent as values", create && JSON.stringify(create.body.config) === JSON.stringify({ caves: "true", max_rounds: "4" }), JSON.stringify(create && create.body.config));
  check("sign-in carries the typed name", auth && auth.body.displayName === "Ada", JSON.stringify(auth && auth.body));
  // the waiting room says who sits and who is awaited
  await page.waitForSelector("#waiting");
  const text = await page.locator("#app").innerText();
  check("the waiting room shows seats and what it awaits", /Waiting room/.test(text) && /Ada/.test(text) && /1 more player/.test(text) && !/Round 0/.test(text) && !/areas 0\/0/.test(text),
    JSON.stringify(text.split("\n").slice(0, 3)));
  const start = await page.evaluate(() => { const r = document.querySelector("#start").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; });
  check("the waiting room's Start is on screen on the phone", start, "");
  await page.screenshot({ path: join(SHOTS, "waiting-phone.png"), fullPage: false });
  await page.goto(`${base}/dist/index.html`);
  await page.waitForSelector("#leaderboard table");
  const board = await page.locator("#leaderboard").innerText();
  check("the leaderboard shows names, ids cut short", /Ada Lovelace/.test(board) && /9f8e7d6c/.test(board) && !/9f8e7d6c5b4a/.test(board) && !/p-ada-0123456789/.test(board), JSON.stringify(board));
  const matches = await page.locator("#matches").innerText();
  check("the match list names its players", /Ada/.test(matches) && !/fixture-/.test(matches), "");
  await ctx.close();
}

async function quick() {
  const ctx = await browser.newContext({ viewport: DESKTOP });
  const page = await ctx.newPage();
  await page.goto(`${base}/dist/index.html`);
  const card = page.locator('#games [data-game="la_isla"]');
  await card.waitFor();
  let before = calls.length;
  await card.locator('[data-action="quick"]').click();
  await card.locator('[data-action="cancel"]').waitFor({ state: "visible" });
  for (let i = 0; i < 40 && !calls.slice(before).some((c) => c.method === "Queue"); i++) await sleep(25);
  await sleep(200);
  const ticket = calls.slice(before).filter((c) => c.method === "Queue").length === 1;
  await card.locator('[data-action="cancel"]').click();
  for (let i = 0; i < 40 && !calls.slice(before).some((c) => c.method === "CancelTicket"); i++) await sleep(25);
  const cancel = calls.slice(before).find((c) => c.method === "CancelTicket");
  const queued = calls.slice(before).find((c) => c.method === "Queue");
  check("Cancel withdraws the ticket", ticket && cancel && /^ticket-/.test(cancel.body.ticketId) && cancel.auth.startsWith("Bearer session-"), JSON.stringify(cancel && cancel.body));
  check("Quick match is offered again after Cancel", await card.locator('[data-action="quick"]').isEnabled() && !(await card.locator('[data-action="cancel"]').isVisible()), "");
  void queued;
  before = calls.length;
  await card.locator('[data-action="quick"]').click();
  await card.locator('[data-action="cancel"]').waitFor({ state: "visible" });
  await sleep(300);
  await page.goto("about:blank");
  for (let i = 0; i < 80 && !calls.slice(before).some((c) => c.method === "CancelTicket"); i++) await sleep(25);
  const left = calls.slice(before).find((c) => c.method === "CancelTicket");
  check("leaving the page withdraws the ticket", Boolean(left && /^ticket-/.test(left.body.ticketId)), JSON.stringify(left && left.body));
  await ctx.close();
}

async function errorsPart() {
  const words = async (url, label, ready = "body[data-ready]") => {
    const ctx = await browser.newContext({ viewport: PHONE });
    const page = await ctx.newPage();
    await page.goto(url);
    await page.waitForSelector(ready, { timeout: 20000 });
    await sleep(300);
    const text = await page.evaluate(() => document.body.innerText);
    await page.screenshot({ path: join(SHOTS, `error-${label.replace(/\W+/g, "-")}.png`) });
    const raw = RAW.filter((r) => r.test(text)).map(String);
    check(`gateway down reads as words: ${label}`, /can't be reached right now/.test(text) && /Try again/.test(text) && raw.length === 0,
      raw.length ? `raw text ${raw}` : JSON.stringify(text.slice(0, 160)));
    await ctx.close();
  };
  mode.down = true;
  await words(`${base}/dist/index.html`, "lobby");
  await words(`${base}/dist/index.html#/match/fixture-el_dorado-1`, "table");
  mode.down = false;
  // nothing answers at all: the browser's own "Failed to fetch"
  const closed = await new Promise((resolve) => { const s = createServer(); s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); }); });
  await words(`${base}/dist/index.html?api=http://127.0.0.1:${closed}`, "unreachable");
  if (process.env.TABLETOP_DOWN_URL) await words(`${process.env.TABLETOP_DOWN_URL}/`, "real edge without its gateway");
}

async function main() {
  if (!existsSync(CHROMIUM)) { console.error(`no chromium at ${CHROMIUM}`); process.exit(2); }
  await mkdir(SHOTS, { recursive: true });
  await loadFixtures();
  const server = await serve();
  base = `http://127.0.0.1:${server.address().port}`;
  if (process.argv[2] === "serve") { console.log(`${base}/dist/index.html`); return; }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const parts = { clicks, layout, lobby, quick, errors: errorsPart };
  const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(parts);
  try {
    for (const name of wanted) {
      try { await parts[name](); } catch (e) { check(`${name} ran`, false, String(e).split("\n")[0]); }
    }
  } finally {
    await browser.close();
    server.close();
  }
  const failed = results.filter((r) => !r).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
