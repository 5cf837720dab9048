CREATE TABLE "vote_delegations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"delegator_id" uuid NOT NULL,
	"delegate_id" uuid NOT NULL,
	"starts_at" timestamp (3) with time zone NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	"reason" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "policy_rules" ADD COLUMN "approvals_required" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "policy_versions" ADD COLUMN "approvals_required" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "approvals_required" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "approval_requests" ADD COLUMN "votes" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "vote_delegations" ADD CONSTRAINT "vote_delegations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vote_delegations" ADD CONSTRAINT "vote_delegations_delegator_id_users_id_fk" FOREIGN KEY ("delegator_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vote_delegations" ADD CONSTRAINT "vote_delegations_delegate_id_users_id_fk" FOREIGN KEY ("delegate_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vote_delegations_delegate" ON "vote_delegations" USING btree ("tenant_id","delegate_id","ends_at");--> statement-breakpoint
-- Requests decided before votes were kept get the one vote that decided them, named as the
-- trail named the decider; who cast it is no longer known, so it counts as that name.
UPDATE "approval_requests" AS a SET "votes" = jsonb_build_array(jsonb_build_object(
  'decision', CASE a."status" WHEN 'approved' THEN 'approve' ELSE 'deny' END,
  'identity', 'recorded:' || e."actor_name",
  'counts_as', 'recorded:' || e."actor_name",
  'principal', e."actor_name",
  'on_behalf_of', NULL,
  'approver_name', a."approver_name",
  'decision_note', a."decision_note",
  'at', to_char(a."decided_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
FROM "trace_events" AS e
WHERE a."status" IN ('approved', 'denied')
  AND e."trace_id" = a."trace_id" AND e."approval_request_id" = a."id"
  AND e."event_type" IN ('approval_granted', 'approval_denied');
