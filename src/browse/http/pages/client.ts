/**
 * The pages' one script: keyboard shortcuts only; every view works without it. It is written
 * here as a typed function (checked by `deno check` against the few DOM members it uses, typed
 * below so the DOM library does not leak into the server's types) and served as its own source
 * text, which is JavaScript by the time it runs (Deno strips the types), inline and allowed by
 * its hash. It takes nothing from outside itself and writes no HTML (Trusted Types forbid it).
 */
interface ScriptElement {
  tagName: string;
  isContentEditable?: boolean;
  form?: { requestSubmit(): void } | null;
  focus(): void;
  click(): void;
}

interface ScriptKeyEvent {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  target: ScriptElement | null;
  preventDefault(): void;
}

interface ScriptDocument {
  addEventListener(type: "keydown", listener: (event: ScriptKeyEvent) => void): void;
  querySelector(selector: string): ScriptElement | null;
}

function pageScript(document: ScriptDocument): void {
  const TYPING = ["INPUT", "TEXTAREA", "SELECT"];
  const follow = (selector: string): boolean => {
    const link = document.querySelector(selector);
    if (!link) return false;
    link.click();
    return true;
  };
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    const typing = target !== null &&
      (target.isContentEditable === true || TYPING.includes(target.tagName));
    // Ctrl/Cmd-Enter in a text box submits its form (runs the query, applies the filters).
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      if (typing && target?.form) {
        event.preventDefault();
        target.form.requestSubmit();
      }
      return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    let done = false;
    if (event.key === "/") {
      const box = document.querySelector("[data-focus-key]");
      if (box) {
        box.focus();
        done = true;
      }
    } else if (event.key === "n") done = follow('a[rel="next"]');
    else if (event.key === "p") done = follow('a[rel="prev"]');
    if (done) event.preventDefault();
  });
}

export const SCRIPT = `(${pageScript.toString()})(document);`;
