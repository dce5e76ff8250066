/** The web page at `/`, used through real Chromium as a person would. */
import Database from "npm:libsql@0.5.29";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { api, fileHash, makeFixtureDb, startTestBrowser } from "../support/browse_fixtures.ts";
import { type Browser, launchChromium, type Page, readPng } from "../support/chromium.ts";
import type { BrowseOptions, RunningBrowser } from "../../src/browse/http/server.ts";

/** Where the screenshots go: $COURIER_SCREENSHOT_DIR to keep them, else a temp dir. */
async function screenshotDir(): Promise<string> {
  return Deno.env.get("COURIER_SCREENSHOT_DIR") ?? await Deno.makeTempDir();
}

/** A screenshot of the viewport that must decode as a PNG of the viewport's size. */
async function screenshot(page: Page, name: string): Promise<void> {
  const path = `${await screenshotDir()}/${name}`;
  await page.screenshot(path);
  assertEquals(
    await readPng(path),
    await page.evaluate(`({ width: innerWidth, height: innerHeight })`),
  );
}

const HOSTILE = `<img src=x onerror="window.pwned=1">`;

/** The fixture database plus the tables a test adds, as SQL run with bind values. */
async function dbWith(...statements: [string, ...unknown[]][]): Promise<string> {
  const path = await makeFixtureDb();
  const db = new Database(path);
  for (const [sql, ...values] of statements) db.prepare(sql).run(...values);
  db.close();
  return path;
}

function hostileDb(): Promise<string> {
  return dbWith(
    ["CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"],
    ["INSERT INTO notes (body) VALUES (?)", HOSTILE],
  );
}

/**
 * Opens the page of a fresh server on `database` in a fresh Chromium and runs `body`; at the
 * end the page must have reported no CSP violation (a blocked script or style would).
 */
async function withPage(
  database: string,
  overrides: Partial<BrowseOptions>,
  body: (page: Page, chromium: Browser, server: RunningBrowser) => Promise<void>,
): Promise<void> {
  const server = await startTestBrowser(database, overrides);
  const chromium = await launchChromium();
  try {
    const page = await chromium.open(server.url);
    await body(page, chromium, server);
    assertEquals(await page.cspViolations(), [], "no CSP violation");
  } finally {
    await chromium.close();
    await server.close();
  }
}

const tableButtons = `[...document.querySelectorAll("#tables button")]`;
function clickTable(page: Page, name: string): Promise<unknown> {
  return page.evaluate(
    `${tableButtons}.find((b) => b.dataset.name === ${JSON.stringify(name)}).click()`,
  );
}
function runQuery(page: Page, sql: string): Promise<unknown> {
  return page.evaluate(`document.getElementById("query").value = ${JSON.stringify(sql)};
    document.getElementById("run").click()`);
}
function bodyRows(page: Page): Promise<string[][]> {
  return page.evaluate(`[...document.querySelectorAll("#result tbody tr")]
    .map((tr) => [...tr.cells].map((c) => c.textContent))`);
}
function enterToken(page: Page, token: string): Promise<unknown> {
  return page.evaluate(`(() => {
    const box = document.getElementById("token");
    box.value = ${JSON.stringify(token)};
    box.dispatchEvent(new Event("change"));
  })()`);
}
/** Whether an element is rendered at all (not hidden, no display: none on the way up). */
function shown(id: string): string {
  return `document.getElementById("${id}").checkVisibility()`;
}
const statusText = `document.getElementById("status").textContent`;
const statusIsError = `document.getElementById("status").className === "error"`;

Deno.test("page: lists tables, runs a query on click and shows data as text", async () => {
  const database = await hostileDb();
  const before = await fileHash(database);
  await withPage(database, {}, async (page) => {
    await page.waitFor(`document.querySelectorAll("#tables button").length > 0`);
    const tables = await page.evaluate<string[]>(`${tableButtons}.map((b) => b.textContent)`);
    for (const name of ["items", "kv", "cheap", "notes", `we"ird; name`]) {
      assert(tables.includes(name), `${name} listed in ${tables}`);
    }
    assertMatch(
      await page.evaluate<string>(`document.getElementById("info").textContent`),
      /read-only/,
    );

    // Clicking a table shows its rows; hostile HTML in the data stays text.
    await clickTable(page, "notes");
    await page.waitFor(`document.querySelectorAll("#result td").length === 2`);
    assertEquals(await bodyRows(page), [["1", HOSTILE]]);
    assertEquals(await page.evaluate(`document.querySelectorAll("#result img").length`), 0);
    assertEquals(await page.evaluate(`window.pwned ?? null`), null);

    // A typed query with Run: exact integers beyond 2^53 as text.
    await runQuery(page, "SELECT name, qty FROM items ORDER BY id");
    await page.waitFor(`document.querySelector("#result th")?.textContent === "name" &&
      document.querySelectorAll("#result tr").length === 4`);
    assertEquals(await bodyRows(page), [
      ["apple", "9007199254740993"],
      ["pear", "-9007199254740993"],
      ["fig", "9007199254740991"],
    ]);
    await page.screenshot(
      Deno.env.get("COURIER_SCREENSHOT") ?? `${await Deno.makeTempDir()}/page.png`,
    );

    // A write is refused and said so; the file is untouched.
    await runQuery(page, "DELETE FROM items");
    await page.waitFor(statusIsError);
    assertMatch(await page.evaluate<string>(statusText), /read-only|refused|write/i);
    assertEquals(await fileHash(database), before);
  });
});

Deno.test("page: CSP allows only the page's own script and style, by hash", async () => {
  const server = await startTestBrowser(await makeFixtureDb());
  try {
    const { headers, text } = await api(server, "/");
    const csp = headers.get("content-security-policy") ?? "";
    assert(!csp.includes("unsafe-inline"), csp);
    assert(!csp.includes("unsafe-eval"), csp);
    for (
      const directive of [
        "default-src 'none'",
        "base-uri 'none'",
        "object-src 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
        "connect-src 'self'",
      ]
    ) {
      assert(csp.split("; ").includes(directive), `${directive} in ${csp}`);
    }
    // The hashes are those of the inline script and style actually served.
    const hash = async (s: string) =>
      btoa(String.fromCharCode(
        ...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))),
      ));
    const script = /<script>([\s\S]*)<\/script>/.exec(text)![1];
    const style = /<style>([\s\S]*)<\/style>/.exec(text)![1];
    assert(csp.includes(`script-src 'sha256-${await hash(script)}';`), csp);
    assert(csp.includes(`style-src 'sha256-${await hash(style)}';`), csp);
  } finally {
    await server.close();
  }

  // In Chromium the page works (withPage fails on any violation), and a script injected
  // into the DOM does not run.
  await withPage(await makeFixtureDb(), {}, async (page) => {
    await page.waitFor(`document.querySelectorAll("#tables button").length > 0`);
    const outcome = await page.evaluate<string>(`(() => {
      try {
        const s = document.createElement("script");
        s.textContent = "window.injected = 1";
        document.body.append(s);
      } catch (e) { return "threw " + e.name; }
      return "inserted";
    })()`);
    assertEquals(await page.evaluate(`window.injected ?? null`), null, outcome);
    // Trusted Types refuse HTML strings before CSP even sees them.
    assertMatch(outcome, /threw TypeError/);
    await page.evaluate(`window.__cspViolations.length = 0`);
  });
});

Deno.test("page: with --token, a hint until the token is entered, then no stale error", async () => {
  await withPage(await makeFixtureDb(), { token: "s3cret-token" }, async (page) => {
    await page.waitFor(statusIsError);
    assertEquals(await page.evaluate(`document.querySelectorAll("#tables button").length`), 0);
    assertMatch(await page.evaluate<string>(statusText), /bearer token/);
    // The hint is on screen and says where the token goes.
    assertEquals(await page.evaluate(shown("auth-hint")), true);
    assertMatch(
      await page.evaluate<string>(`document.getElementById("auth-hint").innerText`),
      /needs a bearer token.*Token box/,
    );
    assertEquals(
      await page.evaluate(`document.getElementById("token").classList.contains("needed")`),
      true,
    );
    await screenshot(page, "page-token-hint.png");

    // A wrong token: still refused, and the hint says so.
    await enterToken(page, "wrong");
    await page.waitFor(
      `/refused this token/.test(document.getElementById("auth-hint").textContent)`,
    );

    await enterToken(page, "s3cret-token");
    await page.waitFor(`document.querySelectorAll("#tables button").length > 0`);
    await page.waitFor(`!${shown("auth-hint")}`);
    assertEquals(await page.evaluate(`document.getElementById("status").className`), "");
    assertEquals(await page.evaluate(statusText), "", "the bearer-token error is gone");
    assertEquals(
      await page.evaluate(`sessionStorage.getItem("courier-token")`),
      "s3cret-token",
      "kept for the tab only",
    );
  });
});

Deno.test("page: a table opens in pages of 100 with the row count", async () => {
  const database = await dbWith(
    ["CREATE TABLE many (n INTEGER PRIMARY KEY)"],
    ["INSERT INTO many SELECT value FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 250) SELECT value FROM s)"],
  );
  await withPage(database, {}, async (page) => {
    await page.waitFor(`document.querySelectorAll("#tables button").length > 0`);
    const range = `document.getElementById("range").textContent`;
    const firstCell = `document.querySelector("#result tbody td")?.textContent`;
    const bodyRowCount = `document.querySelectorAll("#result tbody tr").length`;
    const disabled = (id: string) => `document.getElementById("${id}").disabled`;

    await clickTable(page, "many");
    await page.waitFor(`${range} === "rows 1–100 of 250"`);
    assertEquals(await page.evaluate(bodyRowCount), 100);
    assertEquals(await page.evaluate(firstCell), "1");
    assertEquals(await page.evaluate(disabled("prev")), true);
    assertEquals(await page.evaluate(shown("pager")), true);

    await page.evaluate(`document.getElementById("next").click()`);
    await page.waitFor(`${range} === "rows 101–200 of 250" && ${firstCell} === "101"`);
    await page.evaluate(`document.getElementById("next").click()`);
    await page.waitFor(`${range} === "rows 201–250 of 250" && ${firstCell} === "201"`);
    assertEquals(await page.evaluate(bodyRowCount), 50);
    assertEquals(await page.evaluate(disabled("next")), true);
    await page.evaluate(`document.getElementById("prev").click()`);
    await page.waitFor(`${range} === "rows 101–200 of 250" && ${firstCell} === "101"`);
    assertEquals(await page.evaluate(disabled("prev")), false);

    await clickTable(page, "empty");
    await page.waitFor(`${range} === "no rows"`);
    assertEquals(await page.evaluate(bodyRowCount), 0);

    // A typed query is not a table page: the pager goes away.
    await runQuery(page, "SELECT 1");
    await page.waitFor(`!${shown("pager")}`);
  });
});

Deno.test("page: the table list follows DDL; a success clears the last error", async () => {
  // One worker: the page's refresh is under test here, not when a worker commits.
  await withPage(await makeFixtureDb(), { write: true, workers: 1 }, async (page) => {
    await page.waitFor(`document.querySelectorAll("#tables button").length > 0`);
    await runQuery(page, "SELEC nonsense");
    await page.waitFor(statusIsError);

    await runQuery(page, "CREATE TABLE fresh (a INTEGER)");
    await page.waitFor(`${tableButtons}.some((b) => b.textContent === "fresh")`);
    assertEquals(await page.evaluate(`document.getElementById("status").className`), "");
    assertMatch(await page.evaluate<string>(statusText), /^0 rows/);
  });
});

Deno.test("page: the query history, newest first; a click puts a query back", async () => {
  await withPage(await makeFixtureDb(), {}, async (page) => {
    await page.waitFor(`document.querySelectorAll("#tables button").length > 0`);
    const history = `[...document.querySelectorAll("#history button")]`;
    await runQuery(page, "SELECT 1 AS one");
    await page.waitFor(`${history}[0]?.textContent === "SELECT 1 AS one"`);
    await runQuery(page, "SELECT 2 AS two");
    await page.waitFor(`${history}[0]?.textContent === "SELECT 2 AS two"`);
    // Run again: listed once, at the top.
    await runQuery(page, "SELECT 1 AS one");
    await page.waitFor(`${history}[0]?.textContent === "SELECT 1 AS one"`);
    assertEquals(
      await page.evaluate(`${history}.map((b) => b.textContent)`),
      ["SELECT 1 AS one", "SELECT 2 AS two"],
    );
    await page.evaluate(`${history}[1].click()`);
    assertEquals(
      await page.evaluate(`document.getElementById("query").value`),
      "SELECT 2 AS two",
    );
  });
});

Deno.test("page: bidi and invisible controls in names and values are shown", async () => {
  const name = "users\u202Etxt.exe";
  const database = await dbWith(
    [`CREATE TABLE "${name}" ("a\u200Bb" TEXT)`],
    [`INSERT INTO "${name}" VALUES (?)`, "x\u2066y\u0001z\uFEFF\u{E0041}"],
  );
  await withPage(database, {}, async (page) => {
    await page.waitFor(`${tableButtons}.some((b) => b.dataset.name === ${JSON.stringify(name)})`);
    const button = `${tableButtons}.find((b) => b.dataset.name === ${JSON.stringify(name)})`;
    assertEquals(await page.evaluate(`${button}.textContent`), "users\\u202Etxt.exe");
    assertEquals(await page.evaluate(`${button}.querySelector(".ctl")?.textContent`), "\\u202E");
    // No raw control reaches any text on the page.
    // deno-lint-ignore no-control-regex -- the control characters are what is looked for
    const raw = /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\uFEFF\u0000-\u0008]/;
    assert(!raw.test(await page.evaluate<string>(`document.body.innerText`)));

    await clickTable(page, name);
    await page.waitFor(`document.querySelector("#result tbody td") !== null`);
    assertEquals(
      await page.evaluate(`document.querySelector("#result th").textContent`),
      "a\\u200Bb",
    );
    assertEquals(await bodyRows(page), [["x\\u2066y\\u0001z\\uFEFF\\u{E0041}"]]);
    assertEquals(await page.evaluate(`document.querySelectorAll("#result td .ctl").length`), 4);
    // The generated query in the text box holds the raw name; it is shown again, visibly.
    assertEquals(await page.evaluate(shown("query-controls")), true);
    assertEquals(
      await page.evaluate(`document.querySelector("#query-controls .ctl").textContent`),
      "\\u202E",
    );
    await screenshot(page, "page-controls.png");
    await page.evaluate(`(() => {
      const box = document.getElementById("query");
      box.value = "SELECT 1\\n\\tFROM x";
      box.dispatchEvent(new Event("input"));
    })()`);
    assertEquals(await page.evaluate(shown("query-controls")), false, "tabs and newlines are fine");
    assert(!raw.test(await page.evaluate<string>(`document.body.innerText`)));
  });
});

Deno.test("page: BLOBs show their byte size and download as bytes", async () => {
  await withPage(await makeFixtureDb(), {}, async (page, chromium) => {
    await page.waitFor(`document.querySelectorAll("#tables button").length > 0`);
    await runQuery(page, "SELECT id, data FROM items ORDER BY id");
    await page.waitFor(`document.querySelectorAll("#result tbody tr").length === 3`);
    assertEquals(await bodyRows(page), [
      ["1", "<blob 3 bytes>download"],
      ["2", "NULL"],
      ["3", "<blob 0 bytes>download"],
    ]);
    const download = chromium.nextDownload();
    await page.evaluate(`document.querySelector("#result tbody tr button.link").click()`);
    const file = await download;
    assertEquals(file.suggestedFilename, "data-1.bin");
    assertEquals([...await Deno.readFile(file.path)], [0x00, 0xff, 0x10]);
  });
});

Deno.test("page: the CSV download neutralises formulas; the API's CSV stays exact", async () => {
  const sql = `SELECT '=HYPERLINK("http://x.example","y")' AS f, '@SUM(A1)' AS g,
    '-2+3' AS h, -5 AS n, '+1+1' AS p, char(9) || 't' AS tab, char(13) || 'r' AS cr,
    'a,b' AS comma, 'l1' || char(10) || 'l2' AS nl, 'plain' AS plain, NULL AS nul,
    '' AS empty, 'x' AS "=col"`;
  await withPage(await makeFixtureDb(), {}, async (page, chromium, server) => {
    await page.waitFor(`document.querySelectorAll("#tables button").length > 0`);
    await page.evaluate(`document.getElementById("query").value = ${JSON.stringify(sql)}`);
    const download = chromium.nextDownload();
    await page.evaluate(`document.getElementById("csv").click()`);
    const file = await download;
    assertEquals(file.suggestedFilename, "result.csv");
    assertEquals(
      await Deno.readTextFile(file.path),
      "f,g,h,n,p,tab,cr,comma,nl,plain,nul,empty,'=col\r\n" +
        `"'=HYPERLINK(""http://x.example"",""y"")",'@SUM(A1),'-2+3,-5,'+1+1,'\tt,"'\rr",` +
        `"a,b","l1\nl2",plain,,,x\r\n`,
    );
    await page.waitFor(`${statusText} === "downloaded"`);

    // Many chunks: quotes and formulas cut at every place a chunk can end.
    await page.evaluate(`document.getElementById("query").value =
      "SELECT '=\\"' || value || '\\",x' AS a, value AS b FROM (WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 20000) SELECT value FROM s)"`);
    const many = chromium.nextDownload();
    await page.evaluate(`document.getElementById("csv").click()`);
    let expected = "a,b\r\n";
    for (let n = 1; n <= 20_000; n++) expected += `"'=""${n}"",x",${n}\r\n`;
    assertEquals(await Deno.readTextFile((await many).path), expected);

    const exact = await api(
      server,
      `/api/query?format=csv&query=${encodeURIComponent(sql)}`,
    );
    assertEquals(
      exact.text,
      "f,g,h,n,p,tab,cr,comma,nl,plain,nul,empty,=col\r\n" +
        `"=HYPERLINK(""http://x.example"",""y"")",@SUM(A1),-2+3,-5,+1+1,\tt,"\rr",` +
        `"a,b","l1\nl2",plain,,,x\r\n`,
    );
  });
});

Deno.test("page: a 1 MB cell is clipped, the layout fits the viewport, the viewer shows it all", async () => {
  const huge = "0123456789".repeat(100_000);
  const database = await dbWith(
    ["CREATE TABLE big (id INTEGER PRIMARY KEY, huge TEXT, after1 TEXT, after2 TEXT)"],
    ["INSERT INTO big VALUES (1, ?, 'tail-a', 'tail-b')", huge],
    ["INSERT INTO big VALUES (2, ?, 'tail-c', 'tail-d')", "word ".repeat(30)],
  );
  const dir = await screenshotDir();
  await withPage(database, {}, async (page) => {
    await page.waitFor(`document.querySelectorAll("#tables button").length > 0`);
    await clickTable(page, "big");
    await page.waitFor(`document.querySelectorAll("#result tbody tr").length === 2`);
    const viewport = await page.evaluate<{ width: number; height: number }>(
      `({ width: innerWidth, height: innerHeight })`,
    );
    assertEquals(viewport, { width: 1024, height: 700 });

    const layout = await page.evaluate<{
      scrollWidth: number;
      result: { left: number; right: number };
      wide: string[];
      after: { left: number; right: number; hit: boolean }[];
      shown: number;
    }>(`(() => {
      const rect = (e) => e.getBoundingClientRect();
      const cells = [...document.querySelectorAll("#result tr:first-child > *")];
      const visible = (e) => {
        const r = rect(e);
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return { left: r.left, right: r.right, hit: e.contains(hit) };
      };
      return {
        scrollWidth: document.documentElement.scrollWidth,
        result: { left: rect(document.getElementById("result")).left,
          right: rect(document.getElementById("result")).right },
        wide: [...document.querySelectorAll("*")]
          .filter((e) => rect(e).width > innerWidth).map((e) => e.tagName + "#" + e.id),
        after: [...document.querySelectorAll("#result th")].slice(2)
          .concat([...document.querySelectorAll("#result tbody tr:first-child td")].slice(2))
          .map(visible),
        shown: document.querySelectorAll("#result tbody td")[1].textContent.length,
      };
    })()`);
    assert(layout.scrollWidth <= viewport.width, `page ${layout.scrollWidth} px wide`);
    assert(layout.result.right <= viewport.width, `results end at ${layout.result.right}`);
    assertEquals(layout.wide, [], "elements wider than the viewport");
    assertEquals(layout.after.length, 4, "after1 and after2: headers and cells");
    for (const a of layout.after) {
      assert(a.left >= 0 && a.right <= viewport.width && a.hit, JSON.stringify(a));
    }
    assert(layout.shown <= 201, `the cell shows ${layout.shown} characters`);
    assertEquals(
      await page.evaluate(`document.querySelectorAll("#result tbody td")[2].textContent`),
      "tail-a",
    );

    const table = `${dir}/page-1mb-cell.png`;
    await page.screenshot(table);
    assertEquals(await readPng(table), viewport);

    // The whole value, in a dialog that fits the viewport.
    await page.evaluate(`document.querySelectorAll("#result tbody td")[1].firstChild.click()`);
    await page.waitFor(`document.getElementById("viewer").open`);
    assertEquals(
      await page.evaluate(`document.getElementById("viewer-text").textContent.length`),
      huge.length,
    );
    assertEquals(
      await page.evaluate(`document.getElementById("viewer-text").textContent.slice(-50)`),
      huge.slice(-50),
    );
    const dialog = await page.evaluate<{ right: number; scrollWidth: number }>(`({
      right: document.getElementById("viewer").getBoundingClientRect().right,
      scrollWidth: document.documentElement.scrollWidth })`);
    assert(dialog.right <= viewport.width && dialog.scrollWidth <= viewport.width, `${dialog}`);
    const viewer = `${dir}/page-1mb-viewer.png`;
    await page.screenshot(viewer);
    assertEquals(await readPng(viewer), viewport);
    await page.evaluate(`document.getElementById("viewer-close").click()`);
    await page.waitFor(`!document.getElementById("viewer").open`);

    // A cell cut only by the column width opens too, here from the keyboard.
    await page.evaluate(`(() => {
      const div = document.querySelectorAll("#result tbody tr")[1].cells[1].firstChild;
      div.focus();
      document.activeElement.dispatchEvent(
        new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    })()`);
    await page.waitFor(`document.getElementById("viewer").open`);
    assertEquals(
      await page.evaluate(`document.getElementById("viewer-text").textContent`),
      "word ".repeat(30),
    );
  });
});
