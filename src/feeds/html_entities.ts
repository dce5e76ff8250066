import { decodeHTMLStrict, replaceCodePoint } from "entities/decode";
import { setHtmlEntities } from "./entities.ts";

// Loading this module is what lets decodeEntities read HTML's named references (see optional.ts).
setHtmlEntities({ decodeHTMLStrict, replaceCodePoint });
