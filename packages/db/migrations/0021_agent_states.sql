CREATE TABLE "agent_states" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "agent_states_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"lifecycle_state" text NOT NULL,
	"authority_model" text NOT NULL,
	"identity_mode" text NOT NULL,
	"delegation_model" text NOT NULL,
	"autonomy_tier" text NOT NULL,
	"environment" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "state_id" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "agent_state_id" bigint;--> statement-breakpoint
CREATE INDEX "agent_states_tenant" ON "agent_states" USING btree ("tenant_id","agent_id");--> statement-breakpoint
-- Each agent's state as it stands is its first recorded one.
WITH "recorded" AS (
  INSERT INTO "agent_states" ("tenant_id", "agent_id", "lifecycle_state", "authority_model", "identity_mode", "delegation_model", "autonomy_tier", "environment")
    SELECT "tenant_id", "id", "lifecycle_state", "authority_model", "identity_mode", "delegation_model", "autonomy_tier", "environment" FROM "agents"
    RETURNING "id", "agent_id"
)
UPDATE "agents" SET "state_id" = "recorded"."id" FROM "recorded" WHERE "agents"."id" = "recorded"."agent_id";
--> statement-breakpoint
-- A new state on insert, and on an update that changes a state field; otherwise the agent keeps its own,
-- whatever the update says. The state is written before the agent's row, in the same transaction.
CREATE FUNCTION "agent_state_recorded"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (NEW."lifecycle_state", NEW."authority_model", NEW."identity_mode", NEW."delegation_model", NEW."autonomy_tier", NEW."environment")
      IS NOT DISTINCT FROM (OLD."lifecycle_state", OLD."authority_model", OLD."identity_mode", OLD."delegation_model", OLD."autonomy_tier", OLD."environment") THEN
    NEW."state_id" := OLD."state_id";
  ELSE
    INSERT INTO "agent_states" ("tenant_id", "agent_id", "lifecycle_state", "authority_model", "identity_mode", "delegation_model", "autonomy_tier", "environment")
      VALUES (NEW."tenant_id", NEW."id", NEW."lifecycle_state", NEW."authority_model", NEW."identity_mode", NEW."delegation_model", NEW."autonomy_tier", NEW."environment")
      RETURNING "id" INTO NEW."state_id";
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "agents_state" BEFORE INSERT OR UPDATE ON "agents" FOR EACH ROW EXECUTE FUNCTION "agent_state_recorded"();
