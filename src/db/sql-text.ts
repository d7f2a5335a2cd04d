/**
 * The one home of the SQL text helpers that escape: a string as a literal, a name as an identifier,
 * and an instant written as `Date.prototype.toISOString` writes it. Every statement built as text in
 * `src/` quotes through these (db/json-tree.ts, the compiled reads, data quality, LISTEN).
 */

/** A string as an SQL literal (`'` doubled). */
export const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** An identifier (a column, table or channel name) quoted for SQL (`"` doubled). */
export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A timestamptz as `Date.prototype.toISOString` writes it (UTC, milliseconds, `Z`): what the DateTime scalar and the events answer. */
export const isoInstant = (sql: string) => `to_char(${sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
