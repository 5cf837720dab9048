import { loadConfig } from '@agov/config';
import { openDatabase } from '../client.js';

const database = await openDatabase(loadConfig());
try {
  await database.migrate();
  console.log(`migrations applied (${database.driver})`);
} finally {
  await database.close();
}
