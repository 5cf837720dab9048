import { AggregatorRegistry, type Registry } from 'prom-client';
import type { MetricsSource } from './metrics-server.js';

/*
 * Several API processes under one supervisor (node:cluster) are scraped at the supervisor
 * alone: it asks every process for its registry over their IPC channel and adds them up, each
 * metric by its own aggregator. Counters and histograms are summed; a gauge read from the
 * database holds the same value in every process and says so (`aggregator: 'first'`).
 * prom-client installs its side of the channel, in either process, when an AggregatorRegistry
 * is made.
 */

/** The supervisor's scrape: every API process's metrics, gathered and added up. */
export function clusterMetrics(): MetricsSource {
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() };
}

/** Lets this API process answer its supervisor's scrapes with `registry`. */
export function reportMetricsToSupervisor(registry: Registry): void {
  AggregatorRegistry.setRegistries(registry);
  new AggregatorRegistry();
}
