/** HTML 4 named character references (name:hex code point), which feeds use freely in XML. */
const TABLE =
  "AElig:c6,Aacute:c1,Acirc:c2,Agrave:c0,Alpha:391,Aring:c5,Atilde:c3,Auml:c4,Beta:392," +
  "Ccedil:c7,Chi:3a7,Dagger:2021,Delta:394,ETH:d0,Eacute:c9,Ecirc:ca,Egrave:c8,Epsilon:395," +
  "Eta:397,Euml:cb,Gamma:393,Iacute:cd,Icirc:ce,Igrave:cc,Iota:399,Iuml:cf,Kappa:39a," +
  "Lambda:39b,Mu:39c,Ntilde:d1,Nu:39d,OElig:152,Oacute:d3,Ocirc:d4,Ograve:d2,Omega:3a9," +
  "Omicron:39f,Oslash:d8,Otilde:d5,Ouml:d6,Phi:3a6,Pi:3a0,Prime:2033,Psi:3a8,Rho:3a1," +
  "Scaron:160,Sigma:3a3,THORN:de,Tau:3a4,Theta:398,Uacute:da,Ucirc:db,Ugrave:d9,Upsilon:3a5," +
  "Uuml:dc,Xi:39e,Yacute:dd,Yuml:178,Zeta:396,aacute:e1,acirc:e2,acute:b4,aelig:e6,agrave:e0," +
  "alefsym:2135,alpha:3b1,amp:26,and:2227,ang:2220,aring:e5,asymp:2248,atilde:e3,auml:e4," +
  "bdquo:201e,beta:3b2,brvbar:a6,bull:2022,cap:2229,ccedil:e7,cedil:b8,cent:a2,chi:3c7," +
  "circ:2c6,clubs:2663,cong:2245,copy:a9,crarr:21b5,cup:222a,curren:a4,dArr:21d3,dagger:2020," +
  "darr:2193,deg:b0,delta:3b4,diams:2666,divide:f7,eacute:e9,ecirc:ea,egrave:e8,empty:2205," +
  "emsp:2003,ensp:2002,epsilon:3b5,equiv:2261,eta:3b7,eth:f0,euml:eb,euro:20ac,exist:2203," +
  "fnof:192,forall:2200,frac12:bd,frac14:bc,frac34:be,frasl:2044,gamma:3b3,ge:2265,gt:3e," +
  "hArr:21d4,harr:2194,hearts:2665,hellip:2026,iacute:ed,icirc:ee,iexcl:a1,igrave:ec," +
  "image:2111,infin:221e,int:222b,iota:3b9,iquest:bf,isin:2208,iuml:ef,kappa:3ba,lArr:21d0," +
  "lambda:3bb,lang:2329,laquo:ab,larr:2190,lceil:2308,ldquo:201c,le:2264,lfloor:230a," +
  "lowast:2217,loz:25ca,lrm:200e,lsaquo:2039,lsquo:2018,lt:3c,macr:af,mdash:2014,micro:b5," +
  "middot:b7,minus:2212,mu:3bc,nabla:2207,nbsp:a0,ndash:2013,ne:2260,ni:220b,not:ac,notin:2209," +
  "nsub:2284,ntilde:f1,nu:3bd,oacute:f3,ocirc:f4,oelig:153,ograve:f2,oline:203e,omega:3c9," +
  "omicron:3bf,oplus:2295,or:2228,ordf:aa,ordm:ba,oslash:f8,otilde:f5,otimes:2297,ouml:f6," +
  "para:b6,part:2202,permil:2030,perp:22a5,phi:3c6,pi:3c0,piv:3d6,plusmn:b1,pound:a3," +
  "prime:2032,prod:220f,prop:221d,psi:3c8,quot:22,rArr:21d2,radic:221a,rang:232a,raquo:bb," +
  "rarr:2192,rceil:2309,rdquo:201d,real:211c,reg:ae,rfloor:230b,rho:3c1,rlm:200f,rsaquo:203a," +
  "rsquo:2019,sbquo:201a,scaron:161,sdot:22c5,sect:a7,shy:ad,sigma:3c3,sigmaf:3c2,sim:223c," +
  "spades:2660,sub:2282,sube:2286,sum:2211,sup:2283,sup1:b9,sup2:b2,sup3:b3,supe:2287,szlig:df," +
  "tau:3c4,there4:2234,theta:3b8,thetasym:3d1,thinsp:2009,thorn:fe,tilde:2dc,times:d7," +
  "trade:2122,uArr:21d1,uacute:fa,uarr:2191,ucirc:fb,ugrave:f9,uml:a8,upsih:3d2,upsilon:3c5," +
  "uuml:fc,weierp:2118,xi:3be,yacute:fd,yen:a5,yuml:ff,zeta:3b6,zwj:200d,zwnj:200c,";

const NAMED = new Map<string, string>();
for (const pair of TABLE.split(",")) {
  if (!pair) continue;
  const [name, hex] = pair.split(":");
  NAMED.set(name, String.fromCodePoint(parseInt(hex, 16)));
}
NAMED.set("apos", "'");

/** Windows-1252 meanings of C1 code points, which feeds emit as `&#146;` and the like. */
const CP1252: Record<number, number> = {
  0x80: 0x20ac,
  0x82: 0x201a,
  0x83: 0x0192,
  0x84: 0x201e,
  0x85: 0x2026,
  0x86: 0x2020,
  0x87: 0x2021,
  0x88: 0x02c6,
  0x89: 0x2030,
  0x8a: 0x0160,
  0x8b: 0x2039,
  0x8c: 0x0152,
  0x8e: 0x017d,
  0x91: 0x2018,
  0x92: 0x2019,
  0x93: 0x201c,
  0x94: 0x201d,
  0x95: 0x2022,
  0x96: 0x2013,
  0x97: 0x2014,
  0x98: 0x02dc,
  0x99: 0x2122,
  0x9a: 0x0161,
  0x9b: 0x203a,
  0x9c: 0x0153,
  0x9e: 0x017e,
  0x9f: 0x0178,
};

/** Raised when entity references would expand the document beyond the allowed size. */
export class EntityLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EntityLimitError";
  }
}

/**
 * Entities declared in the document's internal DTD subset, already expanded, plus a budget for
 * how many characters their references may add in total (so a small entity used a million times
 * cannot blow up memory either).
 */
export interface DeclaredEntities {
  values: Map<string, string>;
  /** Names declared SYSTEM/PUBLIC: never fetched or read, their references become "". */
  external: Set<string>;
  budget: number;
}

function fromCodePoint(cp: number): string {
  if (cp >= 0x80 && cp <= 0x9f) return String.fromCodePoint(CP1252[cp] ?? 0xfffd);
  if (cp === 9 || cp === 10 || cp === 13) return String.fromCharCode(cp);
  if (cp < 0x20 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return cp === 0 ? "" : "\ufffd";
  return String.fromCodePoint(cp);
}

function named(name: string, declared: DeclaredEntities | undefined): string | undefined {
  switch (name) {
    case "amp":
      return "&";
    case "lt":
      return "<";
    case "gt":
      return ">";
    case "quot":
      return '"';
    case "apos":
      return "'";
  }
  if (declared) {
    const value = declared.values.get(name);
    if (value !== undefined) {
      declared.budget -= value.length;
      if (declared.budget < 0) {
        throw new EntityLimitError("entity expansion exceeds the limit (billion laughs?)");
      }
      return value;
    }
    if (declared.external.has(name)) return "";
  }
  return NAMED.get(name);
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 ||
    c === 45 || c === 46;
}

/**
 * Decodes character and entity references leniently: XML's five, HTML's named references,
 * numeric references (C1 code points read as windows-1252), and entities declared in the
 * internal subset. Anything else, such as a bare `&`, stays as it is. Named references need
 * their semicolon: "?a=1&copy=2" in a URL is not a copyright sign. A hand-written scanner
 * because this runs on every text node and a regex replace was a tenth of parse time.
 */
export function decodeEntities(text: string, declared?: DeclaredEntities): string {
  let amp = text.indexOf("&");
  if (amp < 0) return text;
  const len = text.length;
  let out = "";
  let last = 0;
  while (amp >= 0) {
    let end = amp + 1;
    let replacement: string | undefined;
    if (text.charCodeAt(end) === 35) {
      let i = end + 1;
      const x = text.charCodeAt(i);
      const hex = x === 120 || x === 88;
      if (hex) i++;
      const start = i;
      while (i < len && i - start < 8) {
        const c = text.charCodeAt(i);
        if (hex ? !isHexDigit(c) : c < 48 || c > 57) break;
        i++;
      }
      if (i > start) {
        replacement = fromCodePoint(parseInt(text.slice(start, i), hex ? 16 : 10));
        end = text.charCodeAt(i) === 59 ? i + 1 : i;
      }
    } else {
      const first = text.charCodeAt(end) | 0x20;
      if (first >= 97 && first <= 122) {
        let i = end + 1;
        while (i < len && i - end < 32 && isNameChar(text.charCodeAt(i))) i++;
        if (text.charCodeAt(i) === 59) {
          replacement = named(text.slice(end, i), declared);
          end = i + 1;
        }
      }
    }
    if (replacement !== undefined) {
      out += text.slice(last, amp) + replacement;
      last = end;
      amp = text.indexOf("&", end);
    } else amp = text.indexOf("&", amp + 1);
  }
  return last === 0 ? text : out + text.slice(last);
}

/** Whether `name` (without `&` and `;`) is one of HTML's named character references. */
export function isHtmlEntity(name: string): boolean {
  return NAMED.has(name) || name === "amp" || name === "lt" || name === "gt" ||
    name === "quot" || name === "apos";
}

/** Decodes the character references of an HTML text (no tags) as an HTML reader would. */
export function decodeHtml(text: string): string {
  return decodeEntities(text);
}
