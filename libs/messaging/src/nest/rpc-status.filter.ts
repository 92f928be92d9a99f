import { Catch, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { Code, RpcError, errorInfo } from '@xchain/contracts';
import { throwError, type Observable } from 'rxjs';

/**
 * Every failure of an `@Rpc` handler goes back to the transport unchanged, so it becomes a
 * google.rpc.Status there: an RpcError as it is, a database outage as UNAVAILABLE, anything else as
 * INTERNAL (logged). Without it, Nest's default filter would turn an RpcError into an anonymous
 * "Internal server error" object. A guard that merely returns false (Nest's RpcException
 * "Forbidden resource") becomes PERMISSION_DENIED.
 */
@Catch()
export class RpcStatusFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    if (exception instanceof RpcException) {
      const error = exception.getError();
      const message = typeof error === 'string' ? error : 'refused';
      return throwError(() => new RpcError(Code.PERMISSION_DENIED, message, [errorInfo('HANDLER_REFUSED')]));
    }
    return throwError(() => exception);
  }
}
