DROP INDEX "trace_events_tenant_time";--> statement-breakpoint
DROP INDEX "traces_tenant_started";--> statement-breakpoint
CREATE INDEX "trace_events_tenant_time" ON "trace_events" USING btree ("tenant_id","timestamp","trace_id","seq");--> statement-breakpoint
CREATE INDEX "traces_tenant_started" ON "traces" USING btree ("tenant_id","started_at","id");