/**
 * Docker's image reference parser, ported for the tests: the grammar of
 * github.com/distribution/reference (regexp.go), its Parse (reference.go) and the
 * ParseNormalizedNamed that `docker pull`, `docker run` and Compose's `image:` go through
 * (normalize.go), with go-digest's check of a digest's algorithm and length. Returns the
 * canonical name (`docker.io/library/courier:latest`) or the error Docker gives.
 */

// regexp.go: the pieces, joined exactly as there.
const alphanumeric = "[a-z0-9]+";
const separator = "(?:[._]|__|[-]+)";
const domainNameComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const optionalPort = "(?::[0-9]+)?";
const tag = "[\\w][\\w.-]{0,127}";
const digestPat = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}";
const ipv6address = "\\[(?:[a-fA-F0-9:]+)\\]";
const domainName = `${domainNameComponent}(?:\\.${domainNameComponent})*`;
const host = `(?:${domainName}|${ipv6address})`;
const domainAndPort = host + optionalPort;
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const remoteName = `${pathComponent}(?:/${pathComponent})*`;
const namePat = `(?:${domainAndPort}/)?${remoteName}`;

const referenceRegexp = new RegExp(`^(${namePat})(?::(${tag}))?(?:@(${digestPat}))?$`);
const anchoredNameRegexp = new RegExp(`^(?:(${domainAndPort})/)?(${remoteName})$`);
const anchoredIdentifierRegexp = /^([a-f0-9]{64})$/;

/** reference.go: RepositoryNameTotalLengthMax. */
const NAME_TOTAL_LENGTH_MAX = 255;
/** go-digest: the algorithms Docker registers, and the length of each one's hex encoding. */
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

export class ReferenceError extends Error {}

export interface ImageReference {
  domain: string;
  path: string;
  tag: string | null;
  digest: string | null;
}

/** go-digest's Parse: algorithm:encoded, a registered algorithm, its exact lowercase hex. */
function checkDigest(digest: string): void {
  const colon = digest.indexOf(":");
  if (colon <= 0 || colon + 1 === digest.length) throw new ReferenceError("invalid digest format");
  const algorithm = digest.slice(0, colon);
  const encoded = digest.slice(colon + 1);
  const length = DIGEST_HEX_LENGTH[algorithm];
  if (length === undefined) throw new ReferenceError("unsupported digest algorithm");
  if (encoded.length !== length || !/^[a-f0-9]+$/.test(encoded)) {
    throw new ReferenceError("invalid checksum digest length");
  }
}

/** reference.go's Parse. */
export function parseReference(s: string): ImageReference {
  if (s === "") throw new ReferenceError("repository name must have at least one component");
  const m = referenceRegexp.exec(s);
  if (!m) {
    const lower = s.toLowerCase();
    if (lower !== s && referenceRegexp.test(lower)) {
      throw new ReferenceError("repository name must be lowercase");
    }
    throw new ReferenceError("invalid reference format");
  }
  const name = anchoredNameRegexp.exec(m[1]);
  const domain = name ? name[1] ?? "" : "";
  const path = name ? name[2] : m[1];
  if (path.length > NAME_TOTAL_LENGTH_MAX) {
    throw new ReferenceError(
      `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`,
    );
  }
  if (m[3] !== undefined) checkDigest(m[3]);
  return { domain, path, tag: m[2] ?? null, digest: m[3] ?? null };
}

/** normalize.go's splitDockerDomain. */
function splitDockerDomain(name: string): [string, string] {
  const slash = name.indexOf("/");
  if (slash === -1) return ["docker.io", `library/${name}`];
  const maybeDomain = name.slice(0, slash);
  const rest = name.slice(slash + 1);
  let domain: string;
  let remote: string;
  if (maybeDomain === "localhost") [domain, remote] = [maybeDomain, rest];
  else if (maybeDomain === "index.docker.io") [domain, remote] = ["docker.io", rest];
  else if (/[.:]/.test(maybeDomain)) [domain, remote] = [maybeDomain, rest];
  else if (maybeDomain.toLowerCase() !== maybeDomain) [domain, remote] = [maybeDomain, rest];
  else [domain, remote] = ["docker.io", name];
  if (domain === "docker.io" && !remote.includes("/")) remote = `library/${remote}`;
  return [domain, remote];
}

/** normalize.go's ParseNormalizedNamed: what `docker pull REF` and Compose's `image:` accept. */
export function parseNormalizedNamed(s: string): ImageReference {
  if (anchoredIdentifierRegexp.test(s)) {
    throw new ReferenceError(
      `invalid repository name (${s}), cannot specify 64-byte hexadecimal strings`,
    );
  }
  const [domain, remainder] = splitDockerDomain(s);
  const colon = remainder.indexOf(":");
  const remote = colon > -1 ? remainder.slice(0, colon) : remainder;
  if (remote.toLowerCase() !== remote) {
    throw new ReferenceError(
      `invalid reference format: repository name (${remote}) must be lowercase`,
    );
  }
  const ref = parseReference(`${domain}/${remainder}`);
  if (ref.path === "") throw new ReferenceError(`reference ${s} has no name`);
  return ref;
}

/** The reference as Docker prints it in full: domain/path[:tag][@digest]. */
export function canonical(ref: ImageReference): string {
  return `${ref.domain}/${ref.path}${ref.tag === null ? "" : `:${ref.tag}`}${
    ref.digest === null ? "" : `@${ref.digest}`
  }`;
}
