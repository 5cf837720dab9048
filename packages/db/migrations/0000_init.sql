CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"scopes" text[] NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"is_development" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"owner_name" text NOT NULL,
	"owner_role" text NOT NULL,
	"team" text NOT NULL,
	"environment" text NOT NULL,
	"authority_model" text NOT NULL,
	"identity_mode" text NOT NULL,
	"delegation_model" text NOT NULL,
	"autonomy_tier" text NOT NULL,
	"authorized_integrations" jsonb NOT NULL,
	"credential_config" jsonb,
	"metadata" jsonb,
	"next_review_date" text NOT NULL,
	"created_by" text NOT NULL,
	"modified_by" text NOT NULL,
	"modified_at" timestamp (3) with time zone NOT NULL,
	"lifecycle_state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "policy_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"policy_name" text NOT NULL,
	"target_integration" text NOT NULL,
	"operation" text NOT NULL,
	"resource_scope" text NOT NULL,
	"data_classification" text NOT NULL,
	"policy_effect" text NOT NULL,
	"rationale" text NOT NULL,
	"priority" integer NOT NULL,
	"conditions" jsonb,
	"max_session_ttl" integer,
	"modified_by" text NOT NULL,
	"modified_at" timestamp (3) with time zone NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"policy_version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "policy_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"policy_rule_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"policy_name" text NOT NULL,
	"target_integration" text NOT NULL,
	"operation" text NOT NULL,
	"resource_scope" text NOT NULL,
	"data_classification" text NOT NULL,
	"policy_effect" text NOT NULL,
	"rationale" text NOT NULL,
	"priority" integer NOT NULL,
	"conditions" jsonb,
	"max_session_ttl" integer,
	"modified_by" text NOT NULL,
	"modified_at" timestamp (3) with time zone NOT NULL,
	"change_summary" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trace_events" (
	"id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"trace_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"event_type" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_name" text NOT NULL,
	"description" text NOT NULL,
	"status" text NOT NULL,
	"timestamp" timestamp (3) with time zone NOT NULL,
	"policy_version" integer,
	"approval_request_id" uuid,
	"metadata" jsonb,
	"integrity_hash" text,
	CONSTRAINT "trace_events_pkey" PRIMARY KEY("trace_id","seq")
);
--> statement-breakpoint
CREATE TABLE "traces" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"agent_name" text NOT NULL,
	"authority_model" text NOT NULL,
	"requested_operation" text NOT NULL,
	"target_integration" text NOT NULL,
	"resource_scope" text NOT NULL,
	"data_classification" text NOT NULL,
	"parent_trace_id" uuid,
	"decision" text NOT NULL,
	"policy_rule_id" uuid,
	"policy_version" integer,
	"final_outcome" text NOT NULL,
	"has_approval" boolean DEFAULT false NOT NULL,
	"outcome_recorded" boolean DEFAULT false NOT NULL,
	"event_count" integer NOT NULL,
	"last_event_hash" text NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "approval_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"trace_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"policy_rule_id" uuid,
	"requested_operation" text NOT NULL,
	"target_integration" text NOT NULL,
	"resource_scope" text NOT NULL,
	"data_classification" text NOT NULL,
	"risk_classification" text NOT NULL,
	"authority_model" text NOT NULL,
	"delegated_from" text NOT NULL,
	"policy_effect" text DEFAULT 'approval_required' NOT NULL,
	"flag_reason" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"context_snapshot" jsonb NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"requested_at" timestamp (3) with time zone NOT NULL,
	"decided_at" timestamp (3) with time zone,
	"approver_name" text,
	"decision_note" text
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"event_type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"http_status" integer,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp (3) with time zone,
	"next_retry_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"secret" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"description" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_integrations" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"mode" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"settings" jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_settings" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"email_enabled" boolean DEFAULT false NOT NULL,
	"reviewer_emails" text[] DEFAULT '{}' NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"plan" text DEFAULT 'free' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"current_period_end" timestamp (3) with time zone NOT NULL,
	"cancel_at_period_end" boolean DEFAULT false NOT NULL,
	"provider_customer_id" text,
	"provider_subscription_id" text,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"available_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "policy_rules" ADD CONSTRAINT "policy_rules_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "policy_rules" ADD CONSTRAINT "policy_rules_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_policy_rule_id_policy_rules_id_fk" FOREIGN KEY ("policy_rule_id") REFERENCES "public"."policy_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_integrations" ADD CONSTRAINT "chat_integrations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_tenant" ON "api_keys" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_token_hash" ON "sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "sessions_user" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tenants_one_development" ON "tenants" USING btree ("is_development") WHERE "tenants"."is_development";--> statement-breakpoint
CREATE UNIQUE INDEX "users_email" ON "users" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "users_tenant" ON "users" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "agents_tenant" ON "agents" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "policy_rules_active_by_agent" ON "policy_rules" USING btree ("tenant_id","agent_id") WHERE "policy_rules"."is_active";--> statement-breakpoint
CREATE INDEX "policy_rules_tenant" ON "policy_rules" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "policy_versions_rule_version" ON "policy_versions" USING btree ("policy_rule_id","version");--> statement-breakpoint
CREATE INDEX "trace_events_tenant_time" ON "trace_events" USING btree ("tenant_id","timestamp");--> statement-breakpoint
CREATE INDEX "traces_tenant_started" ON "traces" USING btree ("tenant_id","started_at");--> statement-breakpoint
CREATE INDEX "traces_tenant_agent_started" ON "traces" USING btree ("tenant_id","agent_id","started_at");--> statement-breakpoint
CREATE INDEX "approval_requests_tenant_status" ON "approval_requests" USING btree ("tenant_id","status","requested_at");--> statement-breakpoint
CREATE INDEX "approval_requests_trace" ON "approval_requests" USING btree ("trace_id");--> statement-breakpoint
CREATE INDEX "approval_requests_pending_expiry" ON "approval_requests" USING btree ("expires_at") WHERE "approval_requests"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint" ON "webhook_deliveries" USING btree ("endpoint_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due" ON "webhook_deliveries" USING btree ("status","next_retry_at");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_tenant" ON "webhook_endpoints" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "outbox_due" ON "outbox" USING btree ("available_at") WHERE "outbox"."processed_at" is null;