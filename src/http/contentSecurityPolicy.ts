// The Content-Security-Policy of the pages Tally serves (/docs, /graphiql): scripts, styles,
// fonts and requests only from Tally's own origin, so no hosted fonts, telemetry or proxies
// are reached, even if a renderer asks for them.
export const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');
