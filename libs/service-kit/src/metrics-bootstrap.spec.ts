import { Controller, Get, type INestApplication, Module } from '@nestjs/common';
import { startService } from './bootstrap';

@Controller()
class PingController {
  @Get('ping')
  ping() {
    return { ok: true };
  }
}

@Module({ controllers: [PingController] })
class PingModule {}

/** What startService does with METRICS_ENABLED: /metrics on the service's own port, or nothing. */
describe('startService metrics', () => {
  const apps: INestApplication[] = [];
  beforeAll(() => {
    process.env['LOG_LEVEL'] = 'silent';
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  async function start(metrics: boolean): Promise<string> {
    const app = await startService({ service: 'test', module: PingModule, host: '127.0.0.1', port: 0, metrics });
    apps.push(app);
    return app.getUrl();
  }

  it('serves /metrics beside the routes, counting requests by route pattern', async () => {
    const url = await start(true);
    expect((await fetch(`${url}/ping`)).status).toBe(200);
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('http_requests_total{method="GET",route="/ping",status="200"} 1');
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('serves no /metrics when METRICS_ENABLED is false', async () => {
    const url = await start(false);
    expect((await fetch(`${url}/ping`)).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
  });
});
