/**
 * Thrown while parsing when a text needs a part of the parser that is loaded apart and was not:
 * the HTML parser, HTML's table of named references. parse.ts loads them all; preview of a
 * file loads them only when the document turns out to need one, and parses again (each was a
 * tenth of that command's start-up, and most feeds need neither).
 */
export class PartNotLoaded extends Error {
  constructor(part: string) {
    super(`the feed parser needs ${part}, not loaded`);
    this.name = "PartNotLoaded";
  }
}
