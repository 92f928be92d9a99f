import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HealthRegistry } from './health';

/** `/livez`: the process runs. `/readyz`: its dependencies answer (503 otherwise). */
@Controller()
export class HealthController {
  constructor(@Inject(HealthRegistry) private readonly health: HealthRegistry) {}

  @Get('livez')
  live() {
    return this.health.liveness();
  }

  @Get('readyz')
  async ready(@Res() reply: FastifyReply) {
    const report = await this.health.readiness();
    await reply.status(report.status === 'ok' ? 200 : 503).send(report);
  }
}
