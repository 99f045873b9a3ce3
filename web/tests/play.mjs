// Plays a match of each game through the web table against a running stack, two
// seats in two browser contexts, picking random legal actions from the page's
// list; checks that a seat's page never shows the other seat's hidden cards;
// screenshots into web/artifacts/play-<game>-*.png.
//
//   TABLETOP_WEB_URL=http://127.0.0.1:8080 node web/tests/play.mjs [game ...]
import { mkdir } from "node:fs/promises";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { apiPath } from "../dist/js/api.js";

const WEB = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(WEB, "artifacts");
const URL_ = process.env.TABLETOP_WEB_URL || "http://127.0.0.1:8080";
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const MAX_STEPS = Number(process.env.PLAY_MAX_STEPS || 1500);
const OPTIONS = { el_dorado: { max_rounds: "4" }, la_isla: {}, discover: {} };

async function api(method, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(`${URL_}${apiPath(method)}`, { method: "POST", headers, body: JSON.stringify(body) });
  return r.json();
}

const seatOf = (page) => page.evaluate(() => JSON.parse(localStorage.getItem("tabletop.seats") || "{}"));
const handOnPage = (page) => page.evaluate(() => [...document.querySelectorAll("#hand [data-card]")].map((e) => e.dataset.card));

function handIds(game, view) {
  if (game === "discover") return (view.hand || []).map((n) => `project-${n}`);
  return view.hand || [];
}

async function playOne(browser, game) {
  const a = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const b = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const pa = await a.newPage(), pb = await b.newPage();
  const errors = [];
  for (const [who, p] of [["A", pa], ["B", pb]]) p.on("pageerror", (e) => errors.push(`${who}: ${e}`));
  await pa.goto(`${URL_}/`);
  const card = pa.locator(`#games [data-game="${game}"]`);
  await card.waitFor();
  await card.locator('select[name="seats"]').selectOption("2");
  for (const [k, v] of Object.entries(OPTIONS[game])) await card.locator(`[name="${k}"]`).fill(v);
  await card.locator('[data-action="create"]').click();
  await pa.waitForURL(/#\/match\//);
  const matchId = decodeURIComponent(pa.url().split("#/match/")[1]);
  await pb.goto(`${URL_}/#/match/${encodeURIComponent(matchId)}`);
  await pb.getByText("Sit at seat 1").click();
  await pb.waitForSelector("#start");
  await pa.reload();
  await pa.locator("#start").click();
  const tokens = { 0: (await seatOf(pa))[matchId].token, 1: (await seatOf(pb))[matchId].token };
  // a spectator: sees the table, no hand at all
  const c = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const pc = await c.newPage();
  pc.on("pageerror", (e) => errors.push(`spectator: ${e}`));
  await pc.goto(`${URL_}/#/match/${encodeURIComponent(matchId)}`);
  await pc.waitForSelector("#board svg");
  let steps = 0, leaks = 0, finished = false;
  const rng = (n) => Math.floor(Math.random() * n);
  while (steps < MAX_STEPS) {
    const summary = (await api("GetView", { matchId })).match;
    if (summary.status === "MATCH_STATUS_FINISHED") { finished = true; break; }
    const toMove = (summary.toMove || []).map(Number);
    if (!toMove.length) { await new Promise((r) => setTimeout(r, 100)); continue; }
    const seat = toMove[rng(toMove.length)];
    const page = seat === 0 ? pa : pb;
    const buttons = page.locator("#actions button");
    try { await buttons.first().waitFor({ timeout: 10000 }); } catch { await page.reload(); continue; }
    const n = await buttons.count();
    const before = summary.version;
    const pick = rng(n);
    // Live updates redraw the list; a button redrawn while Playwright waits for it to be
    // stable is clicked in the page instead (the same handler, without the wait).
    try { await buttons.nth(pick).click({ timeout: 5000 }); }
    catch { await page.evaluate((i) => document.querySelectorAll("#actions button")[i]?.click(), pick); }
    steps++;
    for (let i = 0; i < 50; i++) {
      const v = (await api("GetView", { matchId })).match.version;
      if (v !== before) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (steps % 10 === 0 || steps < 3) {
      // a seat's page shows its own hand, never the other's
      const [va, vb] = await Promise.all([api("GetView", { matchId }, tokens[0]), api("GetView", { matchId }, tokens[1])]);
      for (const [p, mine, other] of [[pa, va, vb], [pb, vb, va]]) {
        await p.waitForTimeout(150);
        const shown = await handOnPage(p);
        const own = handIds(game, mine.view);
        const theirs = handIds(game, other.view).filter((c) => !own.includes(c));
        const leaked = shown.filter((c) => theirs.includes(c) && !own.includes(c));
        if (leaked.length) { leaks++; errors.push(`seat page showed the other seat's cards ${leaked}`); }
        if (game === "la_isla") {
          const html = await p.content();
          for (const c of theirs) if (html.includes(`data-card="${c}"`) && !(other.view.players || []).some((pl) => (pl.slots || []).some((s) => s.top === c))) {
            leaks++; errors.push(`la_isla card ${c} of the other seat is in the page`);
          }
        }
      }
    }
    if (steps % 10 === 0) {
      const [va, vb] = await Promise.all([api("GetView", { matchId }, tokens[0]), api("GetView", { matchId }, tokens[1])]);
      const hidden = [...handIds(game, va.view), ...handIds(game, vb.view)];
      const shown = await handOnPage(pc);
      if (shown.length || (await pc.locator("#hand").count())) { leaks++; errors.push(`the spectator's page shows a hand: ${shown}`); }
      if (game === "la_isla") {
        const html = await pc.content();
        const onBoard = (c) => [...(va.view.players || [])].some((pl) => (pl.slots || []).some((s) => s.top === c));
        for (const card of hidden) if (html.includes(`data-card="${card}"`) && !onBoard(card)) { leaks++; errors.push(`spectator sees ${card}`); }
      }
    }
    if (steps === 8) await pc.screenshot({ path: join(OUT, `play-${game}-spectator.png`), fullPage: true });
    if (steps === 6) await pa.screenshot({ path: join(OUT, `play-${game}-seat0.png`), fullPage: true });
    if (steps === 7) await pb.screenshot({ path: join(OUT, `play-${game}-seat1.png`), fullPage: true });
  }
  await pa.waitForTimeout(500);
  await pa.screenshot({ path: join(OUT, `play-${game}-end.png`), fullPage: true });
  if (finished) {
    // Replay: the finished match's board at an early version is not its last position.
    const before = await pa.locator("#board").innerHTML();
    await pa.evaluate(() => {
      const slider = document.querySelector("#replay-slider");
      slider.value = String(Math.max(1, Math.floor(Number(slider.max) / 3)));
      slider.dispatchEvent(new Event("change"));
    });
    await pa.waitForFunction((b) => document.querySelector("#board")?.innerHTML !== b, before, { timeout: 15000 })
      .catch(() => errors.push("replaying to an early version did not redraw the board"));
    await pa.screenshot({ path: join(OUT, `play-${game}-replay.png`), fullPage: true });
  }
  await a.close(); await b.close(); await c.close();
  return { game, matchId, steps, finished, leaks, errors };
}

// Quick match: two seats queue through the matchmaker and both land at one table.
async function quickMatch(browser, game = "la_isla") {
  const pages = [];
  for (let i = 0; i < 2; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await ctx.newPage();
    await page.goto(`${URL_}/`);
    const card = page.locator(`#games [data-game="${game}"]`);
    await card.waitFor();
    await card.locator('select[name="seats"]').selectOption("2");
    await card.getByText("Quick match").click();
    pages.push(page);
  }
  const ids = [];
  for (const page of pages) {
    await page.waitForURL(/#\/match\//, { timeout: 60000 });
    await page.waitForSelector("#board svg");
    ids.push(decodeURIComponent(page.url().split("#/match/")[1]));
  }
  await pages[0].screenshot({ path: join(OUT, `quick-${game}.png`), fullPage: true });
  const seats = await Promise.all(pages.map(async (p, i) => (await seatOf(p))[ids[i]]?.seat ?? 0));
  for (const p of pages) await p.context().close();
  const errors = [];
  if (ids[0] !== ids[1]) errors.push(`different matches ${ids}`);
  if (seats[0] === seats[1]) errors.push(`same seat ${seats}`);
  return { game: `quick ${game}`, matchId: ids[0], steps: 0, finished: errors.length === 0, leaks: 0, errors };
}

async function main() {
  await mkdir(OUT, { recursive: true });
  const games = process.argv.slice(2).length ? process.argv.slice(2) : ["la_isla", "discover", "el_dorado"];
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  let failed = 0;
  for (const game of games) {
    let r;
    try { r = game === "quick" ? await quickMatch(browser) : await playOne(browser, game); } catch (e) { r = { game, errors: [String(e)], finished: false }; }
    const ok = r.finished && !r.leaks && !r.errors.length;
    if (!ok) failed++;
    console.log(`${ok ? "ok  " : "FAIL"} ${game} match=${r.matchId} steps=${r.steps} finished=${r.finished} ${r.errors.slice(0, 5).join(" | ")}`);
  }
  await browser.close();
  console.log(`${games.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
