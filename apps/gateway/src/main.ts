import './instrument';
import 'reflect-metadata';
import { loadGatewayEnv } from './env';
import { startGateway } from './gateway';

void startGateway(loadGatewayEnv());
