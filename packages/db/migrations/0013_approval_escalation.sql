ALTER TABLE "policy_rules" ADD COLUMN "escalate_after_seconds" integer;--> statement-breakpoint
ALTER TABLE "policy_versions" ADD COLUMN "escalate_after_seconds" integer;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "escalate_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "escalated_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "notification_settings" ADD COLUMN "escalation_emails" text[] DEFAULT '{}' NOT NULL;