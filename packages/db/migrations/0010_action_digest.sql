ALTER TABLE "approval_requests" ADD COLUMN "action_digest" text;--> statement-breakpoint
-- Requests made before the column get the digest evaluate computes now (README, "Action
-- digest"), with JCS (RFC 8785) written out in SQL for the JSON evaluate stores. The functions
-- live only as long as this migration.
--
-- The key order of JCS: by UTF-16 code units, which differs from code point order where a
-- character beyond U+FFFF (two units from D800) meets one in U+E000–U+FFFF. `ascii` gives a
-- character's code point in a UTF8 database.
CREATE FUNCTION "jcs_utf16_units"(key_text text) RETURNS integer[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(unit ORDER BY i, half), '{}')
  FROM generate_series(1, length(key_text)) AS i,
    LATERAL (SELECT ascii(substr(key_text, i, 1)) AS code_point) AS characters,
    LATERAL (VALUES
      (1, CASE WHEN code_point < 65536 THEN code_point ELSE 55296 + ((code_point - 65536) >> 10) END),
      (2, CASE WHEN code_point >= 65536 THEN 56320 + ((code_point - 65536) & 1023) END)) AS units(half, unit)
  WHERE unit IS NOT NULL
$$;--> statement-breakpoint
-- A number as JCS writes it: ECMAScript's Number::toString. Evaluate stored each number with
-- JSON.stringify, so its decimal digits are the shortest that give its double, the very digits
-- Number::toString prints; numeric keeps them exactly and only their layout is redone here.
CREATE FUNCTION "jcs_number"(value numeric) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  -- numeric prints no exponent: digits, and a fraction after a point.
  plain text := abs(value)::text;
  whole text := ltrim(split_part(plain, '.', 1), '0');
  fraction text := split_part(plain, '.', 2);
  sign text := CASE WHEN value < 0 THEN '-' ELSE '' END;
  -- value = 0.digits × 10^n, with k digits: Number::toString's names.
  digits text;
  n integer;
  k integer;
BEGIN
  IF value = 0 THEN
    RETURN '0';
  END IF;
  IF whole <> '' THEN
    digits := rtrim(whole || fraction, '0');
    n := length(whole);
  ELSE
    digits := ltrim(fraction, '0');
    n := length(digits) - length(fraction);
    digits := rtrim(digits, '0');
  END IF;
  k := length(digits);
  IF k <= n AND n <= 21 THEN
    RETURN sign || digits || repeat('0', n - k);
  ELSIF 0 < n AND n <= 21 THEN
    RETURN sign || left(digits, n) || '.' || substr(digits, n + 1);
  ELSIF -6 < n AND n <= 0 THEN
    RETURN sign || '0.' || repeat('0', -n) || digits;
  END IF;
  RETURN sign || left(digits, 1) || CASE WHEN k > 1 THEN '.' || substr(digits, 2) ELSE '' END
    || 'e' || CASE WHEN n > 1 THEN '+' ELSE '-' END || abs(n - 1);
END
$$;--> statement-breakpoint
-- Strings, booleans and null come out of jsonb as JCS writes them: the same escapes as
-- JSON.stringify (\b \t \n \f \r \" \\, other control characters as lowercase \u00xx).
CREATE FUNCTION "jcs"(value jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  CASE jsonb_typeof(value)
    WHEN 'object' THEN
      RETURN '{' || coalesce((
        SELECT string_agg(to_json(key)::text || ':' || "jcs"(member), ',' ORDER BY "jcs_utf16_units"(key))
        FROM jsonb_each(value) AS members(key, member)
      ), '') || '}';
    WHEN 'array' THEN
      RETURN '[' || coalesce((
        SELECT string_agg("jcs"(element), ',' ORDER BY i)
        FROM jsonb_array_elements(value) WITH ORDINALITY AS elements(element, i)
      ), '') || ']';
    WHEN 'number' THEN
      RETURN "jcs_number"(value::numeric);
    ELSE
      RETURN value::text;
  END CASE;
END
$$;--> statement-breakpoint
UPDATE "approval_requests" SET "action_digest" = 'sha256:' || encode(sha256(convert_to("jcs"(jsonb_build_object(
  'agent_id', "agent_id",
  'operation', "requested_operation",
  'target_integration', "target_integration",
  'resource_scope', "resource_scope",
  'data_classification', "data_classification",
  'context', "context_snapshot"
)), 'UTF8')), 'hex');--> statement-breakpoint
ALTER TABLE "approval_requests" ALTER COLUMN "action_digest" SET NOT NULL;--> statement-breakpoint
DROP FUNCTION "jcs"(jsonb);--> statement-breakpoint
DROP FUNCTION "jcs_number"(numeric);--> statement-breakpoint
DROP FUNCTION "jcs_utf16_units"(text);
