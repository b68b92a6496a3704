// A feed's table as text, in the three forms graphics systems read (README "Feeds for graphics
// systems"): a JSON array of flat objects, CSV (RFC 4180: csv-stringify, a header row, CRLF) and
// XML (<feed><row><column>value</column>…</row>…</feed>, the element-per-column shape vMix's XML
// data source selects with the XPath //row). The XML writer is hand-written: docs/feeds.md says why.
import { stringify } from 'csv-stringify/sync';
import type { Cell, Row } from './tables.js';

export const FORMATS = ['json', 'csv', 'xml'] as const;
export type Format = (typeof FORMATS)[number];

export const CONTENT_TYPES: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

export const isFormat = (v: string): v is Format => (FORMATS as readonly string[]).includes(v);

/** The table's text. `columns`: the header (and order) of every row, so a CSV of no rows still has its header. */
export function render(format: Format, rows: readonly Row[], columns: readonly string[], rootName: string): string {
  switch (format) {
    case 'json':
      return JSON.stringify(rows);
    case 'csv':
      return stringify(rows as Row[], {
        header: true,
        columns: columns as string[],
        record_delimiter: 'windows',
        // csv-stringify writes true as "1" and false as "": a graphics title reads the words.
        cast: { boolean: (v) => (v ? 'true' : 'false') },
      });
    case 'xml':
      return xml(rows, columns, rootName);
  }
}

function xml(rows: readonly Row[], columns: readonly string[], rootName: string): string {
  let out = `<?xml version="1.0" encoding="UTF-8"?>\n<${rootName}>\n`;
  for (const row of rows) {
    out += '  <row>';
    // Column names are this module's own camelCase identifiers (tables.ts): valid element names.
    for (const name of columns) out += `<${name}>${cellText(row[name])}</${name}>`;
    out += '</row>\n';
  }
  return out + `</${rootName}>\n`;
}

/** A cell as escaped element content (numbers and booleans need no escaping). */
const cellText = (v: Cell | undefined): string => (v === null || v === undefined ? '' : typeof v === 'string' ? escapeXml(v) : String(v));

// Characters XML 1.0 cannot hold at all (C0 controls but tab, LF, CR; lone surrogates; U+FFFE/U+FFFF):
// dropped, since no escape can carry them. Then the five markup characters as entities.
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const MARKUP = /[&<>"']/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

// Most cells (numbers, booleans, names) need nothing: one test, no copies (a players table has 250 cells).
// eslint-disable-next-line no-control-regex
const NEEDS_WORK = /[&<>"'\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;

/** Text as XML 1.0 element content or attribute value. */
export function escapeXml(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  return text.replace(INVALID_XML, '').replace(MARKUP, (c) => ENTITIES[c]);
}
