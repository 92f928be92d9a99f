export * from './env';
export * from './health';
export * from './health.controller';
export * from './bootstrap';
export * from './core.providers';
export * from './database.providers';
