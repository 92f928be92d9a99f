export const GATEWAY_ENV = Symbol('GATEWAY_ENV');
