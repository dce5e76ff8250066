// The fake's own guarantees, since other tests rely on it to catch mistakes.
import assert from "node:assert/strict";
import { startFakeBotApi } from "../support/fake_bot_api.ts";

async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

Deno.test("fake: enforces 20 a minute per chat with 429 + retry_after", async () => {
  let t = 0;
  const fake = await startFakeBotApi({ now: () => t });
  const url = `${fake.url}/bot${fake.token}/sendMessage`;
  try {
    for (let i = 0; i < 20; i++) {
      const r = await post(url, { chat_id: "@limit_chan", text: `m${i}` });
      assert.equal(r.json.ok, true);
      t += 100;
    }
    const r = await post(url, { chat_id: "@limit_chan", text: "one too many" });
    assert.equal(r.status, 429);
    assert.equal(r.json.ok, false);
    assert.equal(r.json.error_code, 429);
    assert.equal(r.json.parameters.retry_after, 58);
    assert.equal(fake.throttled, 1);
    t = 60_001;
    assert.equal((await post(url, { chat_id: "@limit_chan", text: "ok" })).json.ok, true);
  } finally {
    await fake.close();
  }
});

Deno.test("fake: enforces 30 a second overall", async () => {
  const fake = await startFakeBotApi({ now: () => 0 });
  const url = `${fake.url}/bot${fake.token}/sendMessage`;
  try {
    for (let i = 0; i < 30; i++) {
      assert.equal((await post(url, { chat_id: `@chan_${i}`, text: "x" })).json.ok, true);
    }
    const r = await post(url, { chat_id: "@chan_x", text: "x" });
    assert.deepEqual(r.json, {
      ok: false,
      error_code: 429,
      description: "Too Many Requests: retry after 1",
      parameters: { retry_after: 1 },
    });
  } finally {
    await fake.close();
  }
});

Deno.test("fake: rejects badly escaped HTML like Telegram", async () => {
  const fake = await startFakeBotApi();
  const url = `${fake.url}/bot${fake.token}/sendMessage`;
  try {
    for (const text of ["<b>a & b</b>", "<script>x</script>", "<b>x", "a > b", "<b>x</i>"]) {
      const r = await post(url, { chat_id: "@html_chan", text, parse_mode: "HTML" });
      assert.equal(r.status, 400, text);
      assert.match(r.json.description, /^Bad Request: can't parse entities/);
    }
    const ok = await post(url, {
      chat_id: "@html_chan",
      text: '<b>a &amp; &lt;b&gt;</b>\n<a href="https://x.org/?a=1&amp;b=2">L</a>',
      parse_mode: "HTML",
    });
    assert.equal(ok.json.ok, true);
    assert.deepEqual(fake.messages("@html_chan")[0].links, [{
      href: "https://x.org/?a=1&b=2",
      text: "L",
    }]);
    assert.equal(fake.messages("@html_chan")[0].text, "a & <b>\nL");
  } finally {
    await fake.close();
  }
});
