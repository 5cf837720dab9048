/** ISO 8601 UTC with milliseconds, the one time format the API speaks. */
export const iso = (date: Date) => date.toISOString();

export const isoOrNull = (date: Date | null) => (date ? date.toISOString() : null);
