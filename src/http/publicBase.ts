// The base URL callers reach Tally at, for URLs Tally writes into its answers (the contract's
// `servers`, `dashboardUrl`): PUBLIC_URL behind a proxy, else the scheme and Host of the request.

/** The origin the contract files name; also the fallback when a Host header is not a plain host. */
export const SPEC_ORIGIN = 'http://localhost:8080';
const SAFE_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** PUBLIC_URL when set; else `protocol://host` when the Host header is a plain host[:port]; else SPEC_ORIGIN. */
export function publicBase(publicUrl: string | undefined, protocol: string, host: string | undefined): string {
  if (publicUrl) return publicUrl;
  return host && SAFE_HOST.test(host) ? `${protocol}://${host}` : SPEC_ORIGIN;
}
