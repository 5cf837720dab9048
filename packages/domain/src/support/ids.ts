/** An id as the service writes and reads them: a UUID in its hyphenated form only. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (text: string): boolean => UUID.test(text);
