/**
 * `push`'s progress on stderr: on a terminal a live bar (cli-progress: records done of the total when
 * it is known, records/s, ETA, the outcome counts), otherwise one plain line every few seconds (logs of
 * a CI job or a cron run stay readable), and a last line when done.
 */
import { Presets, SingleBar } from 'cli-progress';
import type { Counts } from './push-checkpoint.js';

export interface ProgressState {
  done: number;
  /** Records in the inputs, when counted. */
  total: number | undefined;
  counts: Counts;
  /** What is being pushed now (`loads.csv`). */
  current: string;
}

export interface Progress {
  update(state: ProgressState): void;
  stop(state: ProgressState): void;
}

/** One formatter for every number (`toLocaleString` builds one a call). */
const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const number = (n: number) => numberFormat.format(Math.round(n));

/** A duration, rounded first (so that 719.6 s is `12 min 0 s`, not `11 min 60 s`). */
function seconds(s: number) {
  if (s >= 3600) {
    const minutes = Math.round(s / 60);
    return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  }
  const whole = Math.round(s);
  return whole >= 60 ? `${Math.floor(whole / 60)} min ${whole % 60} s` : `${whole} s`;
}

const countsText = ({ processed, skipped, duplicate, rejected }: Counts) =>
  `processed ${number(processed)}, skipped ${number(skipped)}, duplicate ${number(duplicate)}, rejected ${number(rejected)}`;

/** Records a second over the last few updates (the rate now, not the average since the start). */
function rateMeter(startDone: number, windowMs = 5_000) {
  const samples: { at: number; done: number }[] = [{ at: performance.now(), done: startDone }];
  return (done: number) => {
    const at = performance.now();
    samples.push({ at, done });
    while (samples.length > 2 && samples[0]!.at < at - windowMs) samples.shift();
    const first = samples[0]!;
    return at > first.at ? ((done - first.done) * 1000) / (at - first.at) : 0;
  };
}

function plainLine(state: ProgressState, rate: number) {
  const { done, total } = state;
  const of = total === undefined ? '' : `/${number(total)}`;
  const share = total ? ` (${Math.min(100, Math.floor((done * 100) / total))}%)` : '';
  const eta = total !== undefined && rate > 0 && total > done ? `, ETA ${seconds((total - done) / rate)}` : '';
  return `push ${state.current}: ${number(done)}${of} records${share}, ${number(rate)} records/s${eta}; ${countsText(state.counts)}`;
}

export function createProgress({ tty, intervalMs, write, done }: { tty: boolean; intervalMs: number; write: NodeJS.WritableStream; done: number }): Progress {
  const rate = rateMeter(done);
  let last: ProgressState | undefined;
  if (!tty) {
    const timer = setInterval(() => last && write.write(`${plainLine(last, rate(last.done))}\n`), intervalMs);
    timer.unref();
    return {
      update: (state) => {
        last = state;
      },
      stop(state) {
        clearInterval(timer);
        write.write(`${plainLine(state, rate(state.done))}\n`);
      },
    };
  }
  const bar = new SingleBar(
    {
      stream: write,
      format:
        ' {bar} {done}{of} records {share}| {rate} records/s | ETA {eta} | processed {processed} skipped {skipped} duplicate {duplicate} rejected {rejected} | {current}',
      hideCursor: true,
      fps: 5,
      barsize: 24,
      // The ETA comes from the rate over the last seconds (ours); cli-progress's own counts every update.
      etaBuffer: 1,
      forceRedraw: true,
    },
    Presets.shades_classic,
  );
  const payload = (state: ProgressState) => {
    const perSecond = rate(state.done);
    const known = state.total !== undefined;
    return {
      done: number(state.done),
      of: known ? `/${number(state.total!)}` : '',
      share: known && state.total ? `(${Math.min(100, Math.floor((state.done * 100) / state.total))}%) ` : '',
      rate: number(perSecond),
      eta: known && perSecond > 0 ? seconds(Math.max(0, state.total! - state.done) / perSecond) : '-',
      processed: number(state.counts.processed),
      skipped: number(state.counts.skipped),
      duplicate: number(state.counts.duplicate),
      rejected: number(state.counts.rejected),
      current: state.current,
    };
  };
  let started = false;
  return {
    update(state) {
      const total = state.total ?? Math.max(state.done, 1);
      if (!started) {
        bar.start(total, state.done, payload(state));
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(state.done, payload(state));
      }
    },
    stop(state) {
      if (!started) bar.start(state.total ?? state.done, state.done, payload(state));
      bar.update(state.done, payload(state));
      bar.stop();
    },
  };
}
