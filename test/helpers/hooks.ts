import { closeSharedServer } from './server.js';
import { stopTestServices } from './services.js';

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(30000);
    await closeSharedServer();
    await stopTestServices();
  },
};
