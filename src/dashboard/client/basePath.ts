// The path Tally is served under (PUBLIC_URL's path behind a proxy), which the server writes into
// the page; every request and link of the dashboard starts with it.

export const basePath = document.querySelector<HTMLMetaElement>('meta[name="tally-base-path"]')?.content ?? '';
