/**
 * The pages in real Chromium, as a person uses them: every view is a URL that survives reload,
 * Back/Forward and a new tab; keyboard; downloads; CSP and Trusted Types; light and dark, wide
 * and narrow. What needs no browser is in pages_test.ts.
 */
import Database from "npm:libsql@0.5.29";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { api, makeFixtureDb, startTestBrowser } from "../support/browse_fixtures.ts";
import { type Browser, launchChromium, type Page, readPng } from "../support/chromium.ts";
import type { RunningBrowser } from "../../src/browse/http/server.ts";

/** Where the screenshots go: $COURIER_SCREENSHOT_DIR to keep them, else a temp dir. */
async function screenshot(page: Page, name: string): Promise<void> {
  const dir = Deno.env.get("COURIER_SCREENSHOT_DIR") ?? await Deno.makeTempDir();
  const path = `${dir}/${name}`;
  await page.screenshot(path);
  assertEquals(
    await readPng(path),
    await page.evaluate(`({ width: innerWidth, height: innerHeight })`),
  );
}

async function sampleDb(): Promise<string> {
  const path = await makeFixtureDb();
  const db = new Database(path);
  db.exec(`
    CREATE TABLE feeds (id INTEGER PRIMARY KEY, name TEXT NOT NULL, url TEXT);
    CREATE TABLE posts (id INTEGER PRIMARY KEY, feed INTEGER REFERENCES feeds(id),
      title TEXT, score REAL, body TEXT);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5)
    INSERT INTO feeds (name, url) SELECT 'feed ' || i, 'https://example.org/' || i FROM n;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250)
    INSERT INTO posts (feed, title, score, body)
      SELECT 1 + i % 5, 'post ' || i, CASE WHEN i % 9 = 0 THEN NULL ELSE (i * 7 % 13) / 2.0 END,
        CASE WHEN i % 50 = 0 THEN '{"id":' || i || ',"tags":["a","b"],"text":"' || printf('%.300c', 'x') || '"}' ELSE 'body ' || i END
      FROM n;`);
  db.close();
  return path;
}

async function withChromium(
  database: string,
  body: (chromium: Browser, server: RunningBrowser) => Promise<void>,
): Promise<void> {
  const server = await startTestBrowser(database);
  const chromium = await launchChromium();
  try {
    await body(chromium, server);
  } finally {
    await chromium.close();
    await server.close();
  }
}

/** What a person sees of a view: its heading and the cells of its result table. */
function seen(page: Page): Promise<string> {
  return page.evaluate<string>(`JSON.stringify({
    h1: document.querySelector("h1")?.textContent,
    rows: [...document.querySelectorAll("table.rows tbody tr, dl.row dd, ul.plan li, table.meta td")]
      .map((e) => e.textContent),
  })`);
}

/**
 * Waits for a condition across a navigation: an evaluation in the document being left is cut
 * off by Chromium ("navigated"), and is asked again in the new one.
 */
async function arrive(page: Page, predicate: string): Promise<void> {
  // A wait begun in the document being left may outlive it unanswered: each wait is short,
  // and asked again (in the new document) until the whole deadline has passed.
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await page.waitFor(`${predicate} && document.readyState === "complete"`, 500);
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

/** Runs `script` (a click, a submit) after this evaluation returns, then waits for the URL. */
async function navigate(page: Page, script: string, urlPart: string): Promise<void> {
  await page.evaluate(`setTimeout(() => { ${script}; }, 0); undefined`);
  await arrive(page, `location.href.includes(${JSON.stringify(urlPart)})`);
}

function clickLink(selector: string): string {
  return `document.querySelector(${JSON.stringify(selector)}).click()`;
}

Deno.test("page: every view is a URL: reload, Back/Forward and a new tab show the same rows", async () => {
  await withChromium(await sampleDb(), async (chromium, server) => {
    const page = await chromium.open(server.url, { width: 1280, height: 800 });
    // Table view: a sort by header, a filter from the form, the next page by key.
    await navigate(page, clickLink('nav a[href="/db/table/posts"]'), "/db/table/posts");
    await navigate(
      page,
      `[...document.querySelectorAll("th a")].find((a) => a.textContent.startsWith("score")).click()`,
      "sort=score",
    );
    await navigate(
      page,
      `document.querySelector("select[name=fc]").value = "title";
       document.querySelectorAll("select[name=fo]")[0].value = "starts";
       document.querySelector("input[name=fv]").value = "post 1";
       document.querySelector("form.filters").requestSubmit()`,
      "fv=post+1",
    );
    await navigate(page, clickLink('a[rel="next"]'), "after=");
    const views: string[] = [await page.evaluate<string>("location.href")];
    // A row (its foreign key followed), the structure, a query's second page, a query plan.
    await navigate(page, clickLink("table.rows tbody td a"), "/row?");
    views.push(await page.evaluate<string>("location.href"));
    await navigate(page, clickLink('dd a[href^="/db/table/feeds"]'), "/db/table/feeds?fc=id");
    views.push(await page.evaluate<string>("location.href"));
    await navigate(page, clickLink('nav.tabs a[href$="/structure"]'), "/structure");
    views.push(await page.evaluate<string>("location.href"));
    const sql = "SELECT id, title FROM posts WHERE score > ? ORDER BY id";
    await navigate(page, `location.href = "/db/query"`, "/db/query");
    await navigate(
      page,
      `const box = document.querySelector("textarea.sql");
       box.value = ${JSON.stringify(sql)};
       document.querySelector("input[name=params]").value = "[3]";
       box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true }))`,
      "sql=",
    );
    assertMatch(
      await page.evaluate<string>(`document.querySelector("[role=status]").textContent`),
      /rows 1–100 \(more follow\)/,
    );
    await navigate(page, clickLink('a[rel="next"]'), "page=2");
    views.push(await page.evaluate<string>("location.href"));
    await navigate(page, `document.querySelector("button[name=plan]").click()`, "plan=1");
    views.push(await page.evaluate<string>("location.href"));

    const shown: string[] = [];
    for (const url of views) {
      await navigate(page, `location.href = ${JSON.stringify(url)}`, url);
      const first = await seen(page);
      assert(JSON.parse(first).rows.length > 0, `${url} shows rows`);
      shown.push(first);
      await page.evaluate(`setTimeout(() => location.reload(), 0); undefined`);
      await arrive(page, `performance.getEntriesByType("navigation")[0].type === "reload"`);
      assertEquals(await seen(page), first, `reload of ${url}`);
      const fresh = await chromium.open(url);
      assertEquals(await seen(fresh), first, `${url} in a new tab`);
      assertEquals(await fresh.cspViolations(), []);
    }
    // Back through every view, then Forward again: the same rows each time.
    for (let i = views.length - 2; i >= 0; i--) {
      await navigate(page, "history.back()", views[i]);
      assertEquals(await seen(page), shown[i], `Back to ${views[i]}`);
    }
    for (let i = 1; i < views.length; i++) {
      await navigate(page, "history.forward()", views[i]);
      assertEquals(await seen(page), shown[i], `Forward to ${views[i]}`);
    }
    assertEquals(await page.cspViolations(), []);
  });
});

Deno.test("page: downloads say what they hold and hold it; keys; CSP and Trusted Types", async () => {
  await withChromium(await sampleDb(), async (chromium, server) => {
    const page = await chromium.open(
      new URL("/db/table/posts?fc=feed&fo=eq&fv=2&sort=score&desc=1", server.url).href,
    );
    const label = await page.evaluate<string>(
      `[...document.querySelectorAll(".downloads a")][0].textContent`,
    );
    assertEquals(label, "all 50 rows, CSV");
    const pending = chromium.nextDownload();
    await page.evaluate(`document.querySelector(".downloads a").click()`);
    const file = await pending;
    assertEquals(file.suggestedFilename, "posts.csv");
    const lines = (await Deno.readTextFile(file.path)).trimEnd().split("\r\n");
    assertEquals(lines.length, 51, "every row of the view, not the page on screen");
    assertEquals(lines[0], "id,feed,title,score,body");

    // "/" focuses the filter; "n" follows Next.
    const big = await chromium.open(new URL("/db/table/posts", server.url).href);
    await big.evaluate(
      `document.dispatchEvent(new KeyboardEvent("keydown", { key: "/", bubbles: true }))`,
    );
    assertEquals(await big.evaluate(`document.activeElement.name`), "fv");
    await navigate(
      big,
      `document.activeElement.blur(); document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "n", bubbles: true }))`,
      "after=",
    );

    // A script put into the page does not run: Trusted Types refuse HTML and script text.
    const outcome = await big.evaluate<string>(`(() => {
      try {
        const s = document.createElement("script");
        s.textContent = "window.injected = 1";
        document.body.append(s);
      } catch (e) { return "threw " + e.name; }
      return "inserted";
    })()`);
    assertMatch(outcome, /threw TypeError/);
    assertEquals(await big.evaluate(`window.injected ?? null`), null);
    const { headers } = await api(server, "/db/table/posts");
    const csp = headers.get("content-security-policy") ?? "";
    for (
      const d of ["default-src 'none'", "form-action 'self'", "require-trusted-types-for 'script'"]
    ) {
      assert(csp.split("; ").includes(d), `${d} in ${csp}`);
    }
    assert(!csp.includes("unsafe"), csp);
  });
});

Deno.test("page: light and dark follow the system; 1280×800 and a phone's width fit", async () => {
  await withChromium(await sampleDb(), async (chromium, server) => {
    const url = new URL("/db/table/posts?sort=score&desc=1&size=25", server.url).href;
    const background = `getComputedStyle(document.body).backgroundColor`;
    const light = await chromium.open(url, { width: 1280, height: 800 }, "light");
    assertEquals(await light.evaluate(background), "rgb(255, 255, 255)");
    await screenshot(light, "browse-light.png");
    const dark = await chromium.open(url, { width: 1280, height: 800 }, "dark");
    assertEquals(await dark.evaluate(background), "rgb(24, 24, 27)");
    await screenshot(dark, "browse-dark.png");
    // A phone: the page itself never scrolls sideways (the rows scroll in their own box).
    const phone = await chromium.open(url, { width: 390, height: 844 });
    assertEquals(
      await phone.evaluate(`document.documentElement.scrollWidth <= innerWidth`),
      true,
    );
    for (const p of [light, dark, phone]) assertEquals(await p.cspViolations(), []);
  });
});
