/**
 * The feed parser, complete: parse_core.ts with the parts loaded apart (see optional.ts). Every
 * caller uses this module except preview of a file, which loads each part only for a document
 * that turns out to need it.
 */
import "./html_entities.ts";
import "./html_parser.ts";

export { type FeedFormat, type ParsedFeed, parseFeed, type ParseOptions } from "./parse_core.ts";
