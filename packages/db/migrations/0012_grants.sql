CREATE TABLE "execution_grants" (
	"jti" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"approval_request_id" uuid NOT NULL,
	"trace_id" uuid NOT NULL,
	"kid" text NOT NULL,
	"token" text NOT NULL,
	"issued_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"redeemed_at" timestamp (3) with time zone,
	"redeemed_by" text
);
--> statement-breakpoint
CREATE TABLE "grant_signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_key" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp (3) with time zone,
	"publish_until" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "grant_signing_keys" ADD CONSTRAINT "grant_signing_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "execution_grants_approval" ON "execution_grants" USING btree ("approval_request_id");--> statement-breakpoint
CREATE INDEX "execution_grants_kid_expiry" ON "execution_grants" USING btree ("kid","expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "grant_signing_keys_one_current" ON "grant_signing_keys" USING btree ("tenant_id") WHERE "grant_signing_keys"."retired_at" is null;--> statement-breakpoint
CREATE INDEX "grant_signing_keys_tenant" ON "grant_signing_keys" USING btree ("tenant_id","created_at");