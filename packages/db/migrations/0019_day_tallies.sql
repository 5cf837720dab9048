CREATE TABLE "trace_day_tallies" (
	"tenant_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"day" timestamp (3) with time zone NOT NULL,
	"decision" text NOT NULL,
	"final_outcome" text NOT NULL,
	"traces" bigint NOT NULL,
	CONSTRAINT "trace_day_tallies_pkey" PRIMARY KEY("tenant_id","day","agent_id","decision","final_outcome")
);
--> statement-breakpoint
INSERT INTO "trace_day_tallies"
  SELECT "tenant_id", "agent_id", date_trunc('day', "hour", 'UTC'), "decision", "final_outcome", sum("traces")
  FROM "trace_tallies" GROUP BY 1, 2, 3, 4, 5;
