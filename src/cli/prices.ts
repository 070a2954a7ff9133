/**
 * List prices of model calls, from the maintained price library @pydantic/genai-prices (MIT; its
 * price data is bundled, no network). Only the CLI bundles it: the run summary
 * (src/analysis/run-summary.ts) takes the pricing as an argument.
 */
import { calcPrice } from '@pydantic/genai-prices';
import type { TokenUsage } from '../trace/schema';

/**
 * The estimated price of one model call in US dollars, or null when the library does not know the
 * model. `usage` is the trace's usage by kind (schema.ts: `input` read fresh, `cache_read`,
 * `cache_write` with its one-hour part `cache_write_1h`, `output` with reasoning in it); the library
 * takes the input as the total read, cache reads and writes included, and prices each part at its own rate.
 * @throws never: a failure of the library is an unknown price.
 */
export function priceCall(model: string, usage: TokenUsage): number | null {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  const cacheRead = n(usage.cache_read);
  const cacheWrite = n(usage.cache_write);
  // the one-hour part of the cache writes, at its own rate (the library reads it as part of cache_write_tokens)
  const hour = Math.min(n(usage.cache_write_1h), cacheWrite);
  try {
    const r = calcPrice({ input_tokens: n(usage.input) + cacheRead + cacheWrite, cache_read_tokens: cacheRead, cache_write_tokens: cacheWrite, ...(hour > 0 ? { cache_write_1h_tokens: hour } : {}), output_tokens: n(usage.output) }, model);
    return r && Number.isFinite(r.total_price) ? r.total_price : null;
  } catch {
    return null;
  }
}
