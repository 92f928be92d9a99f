import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DeletePartnerWebhookRpc, GetPartnerWebhookRpc, ListWebhookDeliveriesRpc, SetPartnerWebhookRpc } from '@xchain/contracts';
import { RpcServer } from '@xchain/messaging';
import { WebhooksService } from './webhooks.service';

/** The webhook operations, each for the partner of the caller's session only (D14). */
@Injectable()
export class WebhookHandlers implements OnModuleInit {
  constructor(
    @Inject(RpcServer) private readonly rpc: RpcServer,
    @Inject(WebhooksService) private readonly webhooks: WebhooksService,
  ) {}

  onModuleInit(): void {
    this.rpc.handle(SetPartnerWebhookRpc, (req, ctx) => this.webhooks.set(ctx.session.partnerId, req.url));
    this.rpc.handle(GetPartnerWebhookRpc, (_req, ctx) => this.webhooks.get(ctx.session.partnerId));
    this.rpc.handle(DeletePartnerWebhookRpc, (_req, ctx) => this.webhooks.remove(ctx.session.partnerId));
    this.rpc.handle(ListWebhookDeliveriesRpc, (req, ctx) => this.webhooks.deliveries(ctx.session.partnerId, req.cursor, req.page_size));
  }
}
