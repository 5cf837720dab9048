-- One index instead of two: the shadow report's window and order, per tenant, as the primary key.
ALTER TABLE "shadow_decisions" DROP CONSTRAINT "shadow_decisions_pkey";--> statement-breakpoint
DROP INDEX "shadow_decisions_tenant_recorded";--> statement-breakpoint
ALTER TABLE "shadow_decisions" ADD CONSTRAINT "shadow_decisions_pkey" PRIMARY KEY("tenant_id","recorded_at","trace_id");
