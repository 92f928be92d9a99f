import { Controller, Inject } from '@nestjs/common';
import { DeletePartnerWebhookRpc, GetPartnerWebhookRpc, ListWebhookDeliveriesRpc, SetPartnerWebhookRpc } from '@xchain/contracts';
import { Rpc, type RpcBody, type RpcCtx } from '@xchain/messaging';
import { WebhooksService } from './webhooks.service';

/** The webhook operations, each for the partner of the caller's session only (D14). */
@Controller()
export class WebhooksHandlers {
  constructor(@Inject(WebhooksService) private readonly webhooks: WebhooksService) {}

  @Rpc(SetPartnerWebhookRpc)
  set(req: RpcBody<typeof SetPartnerWebhookRpc>, ctx: RpcCtx<typeof SetPartnerWebhookRpc>) {
    return this.webhooks.set(ctx.session.partnerId, req.url);
  }

  @Rpc(GetPartnerWebhookRpc)
  get(_req: RpcBody<typeof GetPartnerWebhookRpc>, ctx: RpcCtx<typeof GetPartnerWebhookRpc>) {
    return this.webhooks.get(ctx.session.partnerId);
  }

  @Rpc(DeletePartnerWebhookRpc)
  remove(_req: RpcBody<typeof DeletePartnerWebhookRpc>, ctx: RpcCtx<typeof DeletePartnerWebhookRpc>) {
    return this.webhooks.remove(ctx.session.partnerId);
  }

  @Rpc(ListWebhookDeliveriesRpc)
  deliveries(req: RpcBody<typeof ListWebhookDeliveriesRpc>, ctx: RpcCtx<typeof ListWebhookDeliveriesRpc>) {
    return this.webhooks.deliveries(ctx.session.partnerId, req.cursor, req.page_size);
  }
}
