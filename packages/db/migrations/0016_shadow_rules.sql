CREATE TABLE "shadow_decisions" (
	"trace_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"policy_rule_id" uuid NOT NULL,
	"decision" text NOT NULL,
	"shadow_decision" text NOT NULL,
	"recorded_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "policy_rules" ADD COLUMN "mode" text DEFAULT 'enforce' NOT NULL;--> statement-breakpoint
ALTER TABLE "policy_versions" ADD COLUMN "mode" text DEFAULT 'enforce' NOT NULL;--> statement-breakpoint
CREATE INDEX "shadow_decisions_tenant_recorded" ON "shadow_decisions" USING btree ("tenant_id","recorded_at");