/**
 * Prisma passes the operand of `contains` and of `equals` with `mode: 'insensitive'` to PostgreSQL's
 * (I)LIKE as a pattern, unescaped: `%` and `_` are wildcards and a trailing `\` is an error (SQLSTATE
 * 22025). Read filters compare a client's text literally, so they pass it through `likeLiteral` first.
 */
export const likeLiteral = (text: string) => text.replace(/[\\%_]/g, '\\$&');
