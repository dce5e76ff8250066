/// <reference lib="dom" />
/**
 * The pages' one script: keyboard shortcuts only; every view works without it. It is written
 * here as a typed function (checked by `deno check`) and served as its own source text, which
 * is JavaScript by the time it runs (Deno strips the types), inline and allowed by its hash.
 * It takes nothing from outside itself and writes no HTML (Trusted Types forbid it anyway).
 */
function pageScript(): void {
  const typing = (target: EventTarget | null): boolean =>
    target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
  const follow = (selector: string): boolean => {
    const link = document.querySelector<HTMLAnchorElement>(selector);
    if (!link) return false;
    link.click();
    return true;
  };
  document.addEventListener("keydown", (event: KeyboardEvent) => {
    // Ctrl/Cmd-Enter in a text box submits its form (runs the query, applies filters).
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      const target = event.target;
      if (target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement) {
        const form = target.form;
        if (form) {
          event.preventDefault();
          form.requestSubmit();
        }
      }
      return;
    }
    if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    let done = false;
    if (event.key === "/") {
      const box = document.querySelector<HTMLElement>("[data-focus-key]");
      if (box) {
        box.focus();
        done = true;
      }
    } else if (event.key === "n" || event.key === "ArrowRight") done = follow('a[rel="next"]');
    else if (event.key === "p" || event.key === "ArrowLeft") done = follow('a[rel="prev"]');
    if (done) event.preventDefault();
  });
}

export const SCRIPT = `(${pageScript.toString()})();`;
