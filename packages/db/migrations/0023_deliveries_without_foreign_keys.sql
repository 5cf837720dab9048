-- Deliveries are written in hundreds per claim: no foreign key checks per row. An endpoint's
-- deliveries now go in its delete's transaction, and writers lock the endpoints they write for
-- (see the schema's webhook_deliveries).
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_tenant_id_tenants_id_fk";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk";
