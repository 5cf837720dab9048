/** One GET of a metrics port. */
export async function scrape(port: number, path = '/metrics') {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}

/** The value of one series in a scrape, or undefined when the scrape has no such sample. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
