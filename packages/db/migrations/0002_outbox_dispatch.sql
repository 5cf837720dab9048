CREATE TABLE "audit_batch_cursors" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"reached_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "outbox_due";--> statement-breakpoint
ALTER TABLE "audit_batch_cursors" ADD CONSTRAINT "audit_batch_cursors_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbox_available" ON "outbox" USING btree ("available_at");--> statement-breakpoint
ALTER TABLE "outbox" DROP COLUMN "processed_at";