/**
 * The feed parser, complete: parse_core.ts with the HTML parser loaded, which texts with
 * arbitrary markup need (see htmlToText). Every caller uses this module except preview of a
 * file, which loads the HTML parser only for a document that turns out to need it.
 */
import "./html_parser.ts";

export { type FeedFormat, type ParsedFeed, parseFeed, type ParseOptions } from "./parse_core.ts";
