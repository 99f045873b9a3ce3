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

// A static server for web/ (the table is at /dist/, the fixtures at /fixtures/);
// the gateway's API answers UNAVAILABLE, as when no edge is running.
function serve() {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    if (path.startsWith("/tabletop.")) {
      res.writeHead(503, { "Content-Type": "application/json" });
      return res.end(JSON.stringify({ code: "unavailable", message: "no gateway in fixture mode" }));
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
  } finally {
    await browser.close();
    server.close();
  }
  console.log(`${names.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
