// The contract suite's harness itself: each backend gives an empty, working store per test.
import { expect } from 'chai';
import { eachStore } from '../helpers/stores.js';

eachStore('store contract harness', (store) => {
  it('answers a ping', async () => {
    expect(await store().ping()).to.be.a('number');
  });
});
