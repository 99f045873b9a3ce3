// Renders every fixture in web/fixtures with headless Chromium (Debian's, through
// playwright-core) and saves a screenshot of each under web/artifacts/. Also loads
// the lobby page. Exits non-zero when a page fails to render or logs an error.
//
//   node web/tests/render.mjs [fixture-name ...]
import { createServer } from "node:http";
import { readFile, mkdir, readdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { extname, join, normalize, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const WEB = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(WEB, "artifacts");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json", ".svg": "image/svg+xml" };

// Each game named as ListGames names it: the title and summary of its words (the same
// words the gateway reads, whose copy web/dist/data/words.json is kept in step by a test).
async function named(games) {
  const words = JSON.parse(await readFile(join(WEB, "dist", "data", "words.json"), "utf8"));
  return games.map((g) => ({ ...g, title: words[g.game].title, summary: words[g.game].summary }));
}

// What the lobby is shown in place of a gateway: ListGames and ListMatches answers
// made from the fixtures; every other method answers UNAVAILABLE.
async function lobbyAnswers() {
  const names = JSON.parse(await readFile(join(WEB, "fixtures", "index.json"), "utf8"));
  const matches = [];
  for (const name of names) matches.push(JSON.parse(await readFile(join(WEB, "fixtures", `${name}.json`), "utf8")).match);
  return {
    ListGames: { games: await named([{ game: "el_dorado", minSeats: 2, maxSeats: 4 }, { game: "la_isla", minSeats: 2, maxSeats: 4 }, { game: "discover", minSeats: 1, maxSeats: 4, cooperative: true }]) },
    ListMatches: (body) => ({ matches: matches.filter((m) => !body.status || m.status === body.status) }),
  };
}

// A static server for web/ (the table is at /dist/, the fixtures at /fixtures/).
async function serve() {
  const answers = await lobbyAnswers();
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    if (path.startsWith("/tabletop.")) {
      const method = path.split("/").pop();
      let body = "";
      for await (const chunk of req) body += chunk;
      const answer = answers[method];
      if (!answer) {
        res.writeHead(503, { "Content-Type": "application/json" });
        return res.end(JSON.stringify({ code: "unavailable", message: "no gateway in fixture mode" }));
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(JSON.stringify(typeof answer === "function" ? answer(JSON.parse(body || "{}")) : answer));
    }
    try {
      const body = await readFile(join(WEB, path.endsWith("/") ? path + "index.html" : path));
      res.writeHead(200, { "Content-Type": TYPES[extname(path)] || "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404); res.end("not found");
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function main() {
  if (!existsSync(CHROMIUM)) { console.error(`no chromium at ${CHROMIUM}`); process.exit(2); }
  await mkdir(OUT, { recursive: true });
  const wanted = process.argv.slice(2);
  const names = wanted.length ? wanted : JSON.parse(await readFile(join(WEB, "fixtures", "index.json"), "utf8"));
  const server = await serve();
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  let failed = 0;
  try {
    for (const name of names) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
      await page.goto(`${base}/dist/index.html?fixture=${encodeURIComponent(name)}`);
      try {
        await page.waitForSelector("body[data-ready='1'] #board svg", { timeout: 10000 });
      } catch { errors.push("the board did not render"); }
      const checks = await page.evaluate(() => ({
        hexes: document.querySelectorAll("#board svg *").length,
        targets: document.querySelectorAll("[data-target]").length,
        actions: document.querySelectorAll("#actions button").length,
        log: document.querySelectorAll("#log div").length,
      }));
      await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
      const ok = errors.length === 0 && checks.hexes > 20;
      if (!ok) failed++;
      console.log(`${ok ? "ok  " : "FAIL"} ${name} ${JSON.stringify(checks)} ${errors.join(" | ")}`);
      await page.close();
    }
  } catch (e) {
    await browser.close();
    server.close();
    throw e;
  }
  if (!wanted.length) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${base}/dist/index.html`);
    try {
      await page.waitForSelector("body[data-ready='1'] #games [data-game] svg", { timeout: 10000 });
      await page.waitForSelector("#matches table", { timeout: 10000 });
    } catch { errors.push("the lobby did not render"); }
    await page.screenshot({ path: join(OUT, "lobby.png"), fullPage: true });
    const games = await page.evaluate(() => document.querySelectorAll("#games [data-game]").length);
    const ok = errors.length === 0 && games === 3;
    if (!ok) failed++;
    console.log(`${ok ? "ok  " : "FAIL"} lobby games=${games} ${errors.join(" | ")}`);
    await page.close();
    names.push("lobby");
    // a finished match replayed to an early version: the board of that version
    const replay = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const rerrors = [];
    replay.on("pageerror", (e) => rerrors.push(String(e)));
    await replay.goto(`${base}/dist/index.html?fixture=la_isla-3&replay=60`);
    try { await replay.waitForSelector("body[data-ready='1'] #board svg", { timeout: 10000 }); } catch { rerrors.push("no board"); }
    const shown = await replay.evaluate(() => ({
      slider: document.querySelector("#replay-slider")?.value,
      log: [...document.querySelectorAll("#log .v")].map((e) => Number(e.textContent)).pop(),
    }));
    await replay.screenshot({ path: join(OUT, "replay-la_isla-3.png"), fullPage: true });
    const rok = rerrors.length === 0 && shown.slider === "60" && shown.log <= 60;
    if (!rok) failed++;
    console.log(`${rok ? "ok  " : "FAIL"} replay la_isla-3 to 60 ${JSON.stringify(shown)} ${rerrors.join(" | ")}`);
    await replay.close();
    names.push("replay-la_isla-3");
  }
  await browser.close();
  server.close();
  console.log(`${names.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
