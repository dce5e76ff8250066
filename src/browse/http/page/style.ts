/**
 * The page's style sheet. Inline in the page and allowed by its sha256 hash, so the CSP needs
 * no 'unsafe-inline'; the page never sets `style` attributes (a hash does not cover them).
 */
export const PAGE_STYLE = `
  [hidden] { display: none !important; }
  html, body { height: 100%; }
  body { font: 14px system-ui, sans-serif; margin: 0; display: flex; overflow: hidden; }
  nav { width: 15rem; flex: none; border-right: 1px solid #ccc; padding: .5rem; overflow: auto; }
  nav h3 { margin: .8rem 0 .3rem; font-size: 13px; }
  nav button { display: block; width: 100%; text-align: left; border: 0; background: none;
    padding: .2rem; cursor: pointer; font: inherit; overflow: hidden; text-overflow: ellipsis;
    white-space: nowrap; }
  nav button:hover { background: #eef; }
  #history button { font: 12px ui-monospace, monospace; color: #333; }
  #token.needed { outline: 2px solid #b00; }
  #auth-hint { color: #b00; background: #fee; padding: .4rem; margin: .4rem 0; border-radius: 3px; }
  main { flex: 1; min-width: 0; padding: .5rem 1rem; display: flex; flex-direction: column;
    gap: .3rem; }
  textarea { width: 100%; box-sizing: border-box; height: 6rem; font: 13px ui-monospace, monospace;
    flex: none; }
  #query-controls { font: 12px ui-monospace, monospace; white-space: pre-wrap;
    overflow-wrap: anywhere; max-height: 4.5em; overflow: auto; flex: none; background: #fff6e0;
    padding: .2rem .4rem; }
  #pager { display: flex; gap: .5rem; align-items: center; }
  #result { flex: 1; min-height: 0; overflow: auto; max-width: 100%; }
  table { border-collapse: collapse; }
  td, th { border: 1px solid #ccc; padding: 0; font: 12px ui-monospace, monospace;
    text-align: left; vertical-align: top; }
  th { background: #f4f4f4; position: sticky; top: 0; }
  .v { max-width: 30em; padding: .15rem .4rem; overflow: hidden; text-overflow: ellipsis;
    white-space: pre; }
  .v.clip { cursor: zoom-in; }
  .v.clip:hover { background: #f6f6ff; }
  .null, .blob { color: #999; }
  button.link { border: 0; background: none; padding: 0 0 0 .4rem; color: #06c; cursor: pointer;
    font: inherit; text-decoration: underline; }
  .ctl { color: #a00; background: #fdd; border-radius: 2px; padding: 0 1px; font-style: italic; }
  #status { margin-left: .5rem; color: #555; }
  #status.error { color: #b00; }
  dialog { max-width: min(60rem, 90vw); width: 90vw; box-sizing: border-box; padding: .5rem; }
  dialog header { display: flex; justify-content: space-between; gap: 1rem; margin-bottom: .4rem; }
  #viewer-title { font-weight: bold; overflow: hidden; text-overflow: ellipsis; white-space: pre; }
  #viewer-text { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 75vh; overflow: auto;
    margin: 0; font: 12px ui-monospace, monospace; }
`;
