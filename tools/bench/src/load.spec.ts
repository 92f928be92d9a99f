import { clustering } from './load';

describe('clustering', () => {
  it('counts the slow requests and the windows of scheduled start that hold them', () => {
    // 200 requests, one every 5 ms (1 s, 20 windows of 50 ms); a stall delays those due in 400-460 ms.
    const due = Array.from({ length: 200 }, (_, i) => i * 5);
    const latency = due.map((d) => (d >= 400 && d < 460 ? 470 - d : 2));
    expect(clustering(due, latency)).toEqual({ requests: 12, windows: 20, slowWindows: 2 });
  });

  it('tells a stall from slowness spread over the run', () => {
    const due = Array.from({ length: 200 }, (_, i) => i * 5);
    const spread = due.map((_, i) => (i % 10 === 0 ? 12 : 2)); // every 10th request slow
    expect(clustering(due, spread)).toEqual({ requests: 20, windows: 20, slowWindows: 20 });
  });

  it('counts a request at exactly the threshold as not slow, and takes other widths and thresholds', () => {
    expect(clustering([0, 10, 120], [10, 10.5, 30])).toEqual({ requests: 2, windows: 2, slowWindows: 2 });
    expect(clustering([0, 10, 120], [10, 10.5, 30], 200, 20)).toEqual({ requests: 1, windows: 1, slowWindows: 1 });
  });

  it('gives zeros for a run with no counted request', () => {
    expect(clustering([], [])).toEqual({ requests: 0, windows: 0, slowWindows: 0 });
  });
});
