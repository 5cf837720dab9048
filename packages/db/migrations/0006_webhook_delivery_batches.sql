-- A delivery effect now names a batch of deliveries: rows waiting from before carry one.
UPDATE "outbox" SET "payload" = jsonb_build_object('delivery_ids', jsonb_build_array("payload"->'delivery_id'))
WHERE "kind" = 'webhook_delivery' AND "payload" ? 'delivery_id';
