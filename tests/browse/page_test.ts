/** The web page at `/`, used through real Chromium as a person would. */
import Database from "libsql";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { fileHash, makeFixtureDb, startTestBrowser } from "../support/browse_fixtures.ts";
import { launchChromium } from "../support/chromium.ts";

const HOSTILE = `<img src=x onerror="window.pwned=1">`;

async function hostileDb(): Promise<string> {
  const path = await makeFixtureDb();
  const db = new Database(path);
  db.prepare("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)").run();
  db.prepare("INSERT INTO notes (body) VALUES (?)").run(HOSTILE);
  db.close();
  return path;
}

Deno.test("page: lists tables, runs a query on click and shows data as text", async () => {
  const database = await hostileDb();
  const before = await fileHash(database);
  const server = await startTestBrowser(database);
  const chromium = await launchChromium();
  try {
    const page = await chromium.open(server.url);
    await page.waitFor(`document.querySelectorAll("#tables button").length > 0`);
    const tables = await page.evaluate<string[]>(
      `[...document.querySelectorAll("#tables button")].map((b) => b.textContent)`,
    );
    for (const name of ["items", "kv", "cheap", "notes", `we"ird; name`]) {
      assert(tables.includes(name), `${name} listed in ${tables}`);
    }
    assertMatch(
      await page.evaluate<string>(`document.getElementById("info").textContent`),
      /read-only/,
    );

    // Clicking a table shows its rows; hostile HTML in the data stays text.
    await page.evaluate(
      `[...document.querySelectorAll("#tables button")].find((b) => b.textContent === "notes").click()`,
    );
    await page.waitFor(`document.querySelectorAll("#result td").length === 2`);
    assertEquals(
      await page.evaluate(
        `[...document.querySelectorAll("#result td")].map((td) => td.textContent)`,
      ),
      ["1", HOSTILE],
    );
    assertEquals(await page.evaluate(`document.querySelectorAll("#result img").length`), 0);
    assertEquals(await page.evaluate(`window.pwned ?? null`), null);

    // A typed query with Run: exact integers beyond 2^53 as text.
    await page.evaluate(`document.getElementById("query").value =
      "SELECT name, qty FROM items ORDER BY id"; document.getElementById("run").click()`);
    await page.waitFor(`document.querySelector("#result th")?.textContent === "name" &&
      document.querySelectorAll("#result tr").length === 4`);
    assertEquals(
      await page.evaluate(`[...document.querySelectorAll("#result tbody tr")]
        .map((tr) => [...tr.cells].map((c) => c.textContent))`),
      [["apple", "9007199254740993"], ["pear", "-9007199254740993"], ["fig", "9007199254740991"]],
    );
    await page.screenshot(
      Deno.env.get("COURIER_SCREENSHOT") ?? `${await Deno.makeTempDir()}/page.png`,
    );

    // A write is refused and said so; the file is untouched.
    await page.evaluate(`document.getElementById("query").value = "DELETE FROM items";
      document.getElementById("run").click()`);
    await page.waitFor(`document.getElementById("status").className === "error"`);
    assertMatch(
      await page.evaluate<string>(`document.getElementById("status").textContent`),
      /read-only|refused|write/i,
    );
    assertEquals(await fileHash(database), before);
  } finally {
    await chromium.close();
    await server.close();
  }
});

Deno.test("page: with --token, nothing loads until the token is entered", async () => {
  const server = await startTestBrowser(await makeFixtureDb(), { token: "s3cret-token" });
  const chromium = await launchChromium();
  try {
    const page = await chromium.open(server.url);
    await page.waitFor(`document.getElementById("status").className === "error"`);
    assertEquals(await page.evaluate(`document.querySelectorAll("#tables button").length`), 0);
    await page.evaluate(`const t = document.getElementById("token"); t.value = "s3cret-token";
      t.dispatchEvent(new Event("change"))`);
    await page.waitFor(`document.querySelectorAll("#tables button").length > 0`);
    assertEquals(
      await page.evaluate(`sessionStorage.getItem("courier-token")`),
      "s3cret-token",
      "kept for the tab only",
    );
  } finally {
    await chromium.close();
    await server.close();
  }
});
