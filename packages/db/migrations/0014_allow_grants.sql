ALTER TABLE "execution_grants" ALTER COLUMN "approval_request_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "issue_grants_on_allow" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "grant_signing_keys" DROP COLUMN "publish_until";