import { Controller, Get, Header, Inject } from '@nestjs/common';
import { HTTP_OPERATIONS, buildOpenApiDocument } from '@xchain/contracts';
import { GATEWAY_ENV } from '../tokens';
import type { GatewayEnv } from '../env';

@Controller('json/v1')
export class OpenApiController {
  private readonly document: Record<string, unknown>;

  constructor(@Inject(GATEWAY_ENV) env: GatewayEnv) {
    this.document = buildOpenApiDocument(HTTP_OPERATIONS, {
      title: 'xchain swap API',
      version: '1.0.0',
      serverUrl: env.PUBLIC_BASE_URL ?? `http://${env.HOST}:${env.GATEWAY_PORT}`,
    });
  }

  /** The OpenAPI 3.1 document, generated from the schemas that validate requests. */
  @Get('openapi.json')
  @Header('cache-control', 'public, max-age=300')
  openapi() {
    return this.document;
  }
}
