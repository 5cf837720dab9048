CREATE TABLE "email_confirmations" (
	"tenant_id" uuid NOT NULL,
	"email" text NOT NULL,
	"token_hash" text,
	"sent_at" timestamp (3) with time zone,
	"confirmed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_confirmations_tenant_id_email_pk" PRIMARY KEY("tenant_id","email")
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "created_by_identity" text;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "requested_by_identity" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "past_due_since" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "email_confirmations" ADD CONSTRAINT "email_confirmations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "email_confirmations_token" ON "email_confirmations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "email_confirmations_email_sent" ON "email_confirmations" USING btree ("email","sent_at");--> statement-breakpoint
CREATE INDEX "chat_integrations_bot_team" ON "chat_integrations" USING btree (("settings" ->> 'team_id')) WHERE "chat_integrations"."mode" = 'bot' and "chat_integrations"."enabled";--> statement-breakpoint
-- A subscription already past due starts its grace period from its last change.
UPDATE "subscriptions" SET "past_due_since" = "updated_at" WHERE "status" = 'past_due';
