import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './auth.guard';
import { IdentityController, PortalAdminController } from './identity.controller';
import { IdentityRepository } from './identity.repository';
import { IdentityService } from './identity.service';
import { SignInThrottle } from './signin-throttle';
import { TokenPurger } from './token-purger';
import { TokenService } from './token.service';

@Module({
  controllers: [IdentityController, PortalAdminController],
  providers: [IdentityRepository, IdentityService, TokenService, SignInThrottle, TokenPurger, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [IdentityService, TokenService],
})
export class IdentityModule {}
