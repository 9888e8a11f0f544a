import { Session } from 'node:inspector';

/** One place that allocated, and how many bytes a decision it allocated there. */
export interface AllocationSite {
  site: string;
  bytes: number;
}

/** What a decision allocates: in all, and at the places that allocate most. */
export interface AllocationProfile {
  bytesPerDecision: number;
  top: AllocationSite[];
}

/** One byte in this many is sampled, with its stack: precise over hundreds of MB. */
const SAMPLING_INTERVAL_BYTES = 1024;
const TOP_SITES = 12;

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/**
 * V8's sampling heap profiler, in this process, counting objects the collector has already freed
 * too: the bytes a window's code allocated and where, whatever survives. Unlike CPU time it hardly
 * moves with the machine's load: totals vary by about 1 % between runs, and a place's share moves
 * with what the compiler inlined (docs/benchmarks.md). It slows the process: CPU figures measured
 * beside it are not comparable.
 */
export class AllocationSampler {
  private readonly session = new Session();

  async start(): Promise<void> {
    this.session.connect();
    await this.post('HeapProfiler.enable');
    await this.post('HeapProfiler.startSampling', {
      samplingInterval: SAMPLING_INTERVAL_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }

  /** Stops sampling; what `decisions` decisions allocated, per decision. */
  async stop(decisions: number): Promise<AllocationProfile> {
    const { profile } = (await this.post('HeapProfiler.stopSampling')) as {
      profile: { head: HeapNode };
    };
    this.session.disconnect();
    const bySite = new Map<string, number>();
    const visit = (node: HeapNode) => {
      const { functionName, url, lineNumber } = node.callFrame;
      const site = `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`;
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
      for (const child of node.children) visit(child);
    };
    visit(profile.head);
    let total = 0;
    for (const bytes of bySite.values()) total += bytes;
    const top = [...bySite]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP_SITES)
      .map(([site, bytes]) => ({ site, bytes: Math.round(bytes / decisions) }));
    return { bytesPerDecision: Math.round(total / decisions), top };
  }

  private post(method: string, params?: object): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.session.post(method, params, (error, result) => {
        if (error) reject(error);
        else resolve(result);
      });
    });
  }
}

/** A file as the repository names it, or a package as node_modules does. */
function shortUrl(url: string): string {
  const inPackages = url.lastIndexOf('node_modules/');
  if (inPackages >= 0) return url.slice(inPackages + 'node_modules/'.length);
  const compiled = url.indexOf('/bench/app/dist/');
  return compiled >= 0 ? url.slice(compiled + '/bench/app/dist/'.length) : url;
}
